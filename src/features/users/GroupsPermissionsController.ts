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
import type { Id, PageNumber, PageSize } from '../../api/params.js';
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
   */
  @Get()
  @OperationId('list_groups_permissions')
  public async list(
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedGroupPermissionsResponse> {
    return this.permissions.listGroup(page, page_size);
  }

  @Post()
  @OperationId('create_group_permission')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The user already has a row for this group')
  public async create(@Body() body: CreateGroupPermissionRequest): Promise<GroupPermissionResponse> {
    return this.permissions.createGroup(body);
  }

  @Get('{id}')
  @OperationId('get_group_permission')
  public async get(@Path() id: Id): Promise<GroupPermissionResponse> {
    return this.permissions.getGroup(id);
  }

  @Patch('{id}')
  @OperationId('update_group_permission')
  public async update(@Path() id: Id, @Body() body: UpdateGroupPermissionRequest): Promise<GroupPermissionResponse> {
    return this.permissions.updateGroup(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_group_permission')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.permissions.removeGroup(id);
  }
}
