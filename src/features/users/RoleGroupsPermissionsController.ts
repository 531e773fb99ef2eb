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
  RolePermissionsService,
  type CreateRoleGroupPermissionRequest,
  type RoleGroupPermissionResponse,
  type UpdateRoleGroupPermissionRequest,
} from './role-permissions-service.js';

export interface PaginatedRoleGroupPermissionsResponse extends Page<RoleGroupPermissionResponse> {}

// A role's per-group rules (Role_Groups_Permissions). System-gated like all permission CRUD.
@Route('api/v3/role-groups-permissions')
@Tags('Role Groups Permissions')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input: unknown role or group, bad permission')
@Response<AppResponseError>(403, 'System permission required')
export class RoleGroupsPermissionsController extends FeatureController {
  private readonly service = this.services.get(RolePermissionsService);

  /**
   * Lists role group permission rows.
   * @param role_id Only rows of this role.
   */
  @Get()
  @OperationId('list_role_groups_permissions')
  public async list(
    @Query() role_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedRoleGroupPermissionsResponse> {
    return this.service.listGroup(role_id, page, page_size);
  }

  @Post()
  @OperationId('create_role_group_permission')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The role already has a row for this group')
  public async create(@Body() body: CreateRoleGroupPermissionRequest): Promise<RoleGroupPermissionResponse> {
    return this.service.createGroup(body);
  }

  @Get('{id}')
  @OperationId('get_role_group_permission')
  public async get(@Path() id: Id): Promise<RoleGroupPermissionResponse> {
    return this.service.getGroup(id);
  }

  @Patch('{id}')
  @OperationId('update_role_group_permission')
  @Response<AppResponseError>(409, 'The role already has a row for this group')
  public async update(
    @Path() id: Id,
    @Body() body: UpdateRoleGroupPermissionRequest,
  ): Promise<RoleGroupPermissionResponse> {
    return this.service.updateGroup(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_role_group_permission')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.service.removeGroup(id);
  }
}
