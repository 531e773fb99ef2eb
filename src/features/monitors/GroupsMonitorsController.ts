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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_groups_monitors')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: number,
    @Query() page_size?: number,
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

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_group_monitor')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL')
  public async get(@Request() req: ExRequest, @Path() id: number): Promise<GroupMonitorResponse> {
    return this.memberships.get(currentUser(req), id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_group_monitor')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL')
  public async remove(@Request() req: ExRequest, @Path() id: number): Promise<void> {
    await this.memberships.remove(currentUser(req), id);
  }
}
