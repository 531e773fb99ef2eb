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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isInt role_id must be an integer >= 0
   * @minimum role_id 0
   * @maximum role_id 2147483647
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_role_groups_permissions')
  public async list(
    @Query() role_id?: number,
    @Query() page?: number,
    @Query() page_size?: number,
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

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_role_group_permission')
  public async get(@Path() id: number): Promise<RoleGroupPermissionResponse> {
    return this.service.getGroup(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_role_group_permission')
  @Response<AppResponseError>(409, 'The role already has a row for this group')
  public async update(
    @Path() id: number,
    @Body() body: UpdateRoleGroupPermissionRequest,
  ): Promise<RoleGroupPermissionResponse> {
    return this.service.updateGroup(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_role_group_permission')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.service.removeGroup(id);
  }
}
