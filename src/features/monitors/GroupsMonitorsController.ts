import {
  Body,
  Delete,
  Get,
  OperationId,
  Path,
  Post,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  GroupsMonitorsService,
  type CreateGroupMonitorRequest,
  type GroupMonitorResponse,
} from './groups-monitors-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedGroupMonitorsResponse extends Page<GroupMonitorResponse> {}

@Route('api/v3/groups-monitors')
@Tags('Groups Monitors')
@Security('jwt', ['groups'])
@Response<AppResponseError>(400, 'Invalid input: unknown group or monitor')
@Response<AppResponseError>(403, 'Groups permission required, or the group is view-only for this account')
export class GroupsMonitorsController extends FeatureController {
  private readonly memberships = this.services.get(GroupsMonitorsService);

  /**
   * Group memberships whose group and monitor the caller may both see.
   */
  @Get()
  @OperationId('list_groups_monitors')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedGroupMonitorsResponse> {
    return this.memberships.list(currentUser(req), page, page_size);
  }

  @Post()
  @OperationId('create_group_monitor')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The monitor is already in the group')
  public async create(
    @Request() req: ExRequest,
    @Body() body: CreateGroupMonitorRequest,
  ): Promise<GroupMonitorResponse> {
    return this.memberships.create(currentUser(req), body);
  }

  @Get('{id}')
  @OperationId('get_group_monitor')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<GroupMonitorResponse> {
    return this.memberships.get(currentUser(req), id);
  }

  @Delete('{id}')
  @OperationId('delete_group_monitor')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.memberships.remove(currentUser(req), id);
  }
}
