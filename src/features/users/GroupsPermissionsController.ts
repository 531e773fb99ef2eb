import {
  Body,
  Delete,
  Get,
  OperationId,
  Patch,
  Path,
  Post,
  Query,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  PermissionsService,
  type CreateGroupPermissionRequest,
  type GroupPermissionResponse,
  type UpdateGroupPermissionRequest,
} from './permissions-service.js';

export interface PaginatedGroupPermissionsResponse extends Page<GroupPermissionResponse> {}

// Permission management is System-gated on purpose: a Groups-Edit user cannot raise their own rights.
@Route('api/v3/groups-permissions')
@Tags('Groups Permissions')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input: unknown user or group, bad permission')
@Response<AppResponseError>(403, 'System permission required')
export class GroupsPermissionsController extends FeatureController {
  private readonly permissions = this.services.get(PermissionsService);

  /**
   * Lists group permission rows.
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
  @OperationId('list_groups_permissions')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedGroupPermissionsResponse> {
    return this.permissions.listGroup(page, page_size);
  }

  @Post()
  @OperationId('create_group_permission')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The user already has a row for this group')
  public async create(@Body() body: CreateGroupPermissionRequest): Promise<GroupPermissionResponse> {
    return this.permissions.createGroup(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_group_permission')
  public async get(@Path() id: number): Promise<GroupPermissionResponse> {
    return this.permissions.getGroup(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_group_permission')
  public async update(
    @Path() id: number,
    @Body() body: UpdateGroupPermissionRequest,
  ): Promise<GroupPermissionResponse> {
    return this.permissions.updateGroup(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_group_permission')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.permissions.removeGroup(id);
  }
}
