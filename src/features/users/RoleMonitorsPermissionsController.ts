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
  type CreateRoleMonitorPermissionRequest,
  type RoleMonitorPermissionResponse,
  type UpdateRoleMonitorPermissionRequest,
} from './role-permissions-service.js';

export interface PaginatedRoleMonitorPermissionsResponse extends Page<RoleMonitorPermissionResponse> {}

// A role's per-monitor rules (Role_Monitors_Permissions). System-gated like all permission CRUD.
@Route('api/v3/role-monitors-permissions')
@Tags('Role Monitors Permissions')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input: unknown role or monitor, bad permission')
@Response<AppResponseError>(403, 'System permission required')
export class RoleMonitorsPermissionsController extends FeatureController {
  private readonly service = this.services.get(RolePermissionsService);

  /**
   * Lists role monitor permission rows.
   * @param role_id Only rows of this role.
   */
  @Get()
  @OperationId('list_role_monitors_permissions')
  public async list(
    @Query() role_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedRoleMonitorPermissionsResponse> {
    return this.service.listMonitor(role_id, page, page_size);
  }

  @Post()
  @OperationId('create_role_monitor_permission')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The role already has a row for this monitor')
  public async create(@Body() body: CreateRoleMonitorPermissionRequest): Promise<RoleMonitorPermissionResponse> {
    return this.service.createMonitor(body);
  }

  @Get('{id}')
  @OperationId('get_role_monitor_permission')
  public async get(@Path() id: Id): Promise<RoleMonitorPermissionResponse> {
    return this.service.getMonitor(id);
  }

  @Patch('{id}')
  @OperationId('update_role_monitor_permission')
  @Response<AppResponseError>(409, 'The role already has a row for this monitor')
  public async update(
    @Path() id: Id,
    @Body() body: UpdateRoleMonitorPermissionRequest,
  ): Promise<RoleMonitorPermissionResponse> {
    return this.service.updateMonitor(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_role_monitor_permission')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.service.removeMonitor(id);
  }
}
