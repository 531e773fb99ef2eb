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
  type CreateMonitorPermissionRequest,
  type MonitorPermissionResponse,
  type UpdateMonitorPermissionRequest,
} from './permissions-service.js';

export interface PaginatedMonitorPermissionsResponse extends Page<MonitorPermissionResponse> {}

// Permission management is System-gated on purpose: a Monitors-Edit user cannot raise their own rights.
@Route('api/v3/monitors-permissions')
@Tags('Monitors Permissions')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input: unknown user or monitor, bad permission')
@Response<AppResponseError>(403, 'System permission required')
export class MonitorsPermissionsController extends FeatureController {
  private readonly permissions = this.services.get(PermissionsService);

  /**
   * Lists monitor permission rows.
   */
  @Get()
  @OperationId('list_monitors_permissions')
  public async list(
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedMonitorPermissionsResponse> {
    return this.permissions.listMonitor(page, page_size);
  }

  @Post()
  @OperationId('create_monitor_permission')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The user already has a row for this monitor')
  public async create(@Body() body: CreateMonitorPermissionRequest): Promise<MonitorPermissionResponse> {
    return this.permissions.createMonitor(body);
  }

  @Get('{id}')
  @OperationId('get_monitor_permission')
  public async get(@Path() id: Id): Promise<MonitorPermissionResponse> {
    return this.permissions.getMonitor(id);
  }

  @Patch('{id}')
  @OperationId('update_monitor_permission')
  public async update(
    @Path() id: Id,
    @Body() body: UpdateMonitorPermissionRequest,
  ): Promise<MonitorPermissionResponse> {
    return this.permissions.updateMonitor(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_monitor_permission')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.permissions.removeMonitor(id);
  }
}
