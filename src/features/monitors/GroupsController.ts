import {
  Body,
  Delete,
  Get,
  OperationId,
  Path,
  Post,
  Put,
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
  GroupsService,
  type CreateGroupRequest,
  type GroupResponse,
  type UpdateGroupRequest,
} from './groups-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedGroupsResponse extends Page<GroupResponse> {}

@Route('api/v3/groups')
@Tags('Groups')
@Security('jwt', ['groups'])
@Response<AppResponseError>(400, 'Invalid input: unknown parent, self-parent or cycle')
@Response<AppResponseError>(403, 'Groups permission required, or the group is view-only for this account')
export class GroupsController extends FeatureController {
  private readonly groups = this.services.get(GroupsService);

  /**
   * Lists the groups the caller may see.
   */
  @Get()
  @OperationId('list_groups')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedGroupsResponse> {
    return this.groups.list(currentUser(req), page, page_size);
  }

  @Post()
  @OperationId('create_group')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateGroupRequest): Promise<GroupResponse> {
    return this.groups.create(currentUser(req), body);
  }

  @Get('{id}')
  @OperationId('get_group')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<GroupResponse> {
    return this.groups.get(currentUser(req), id);
  }

  /**
   * Partial update: `parent_id` omitted keeps the parent, null makes the group top level.
   */
  @Put('{id}')
  @OperationId('update_group')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL')
  public async update(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateGroupRequest,
  ): Promise<GroupResponse> {
    return this.groups.update(currentUser(req), id, body);
  }

  /**
   * Deletes the group with its subgroups and memberships (monitors stay).
   */
  @Delete('{id}')
  @OperationId('delete_group')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.groups.remove(currentUser(req), id);
  }
}
