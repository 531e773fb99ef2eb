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
  @OperationId('list_monitors_permissions')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedMonitorPermissionsResponse> {
    return this.permissions.listMonitor(page, page_size);
  }

  @Post()
  @OperationId('create_monitor_permission')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The user already has a row for this monitor')
  public async create(@Body() body: CreateMonitorPermissionRequest): Promise<MonitorPermissionResponse> {
    return this.permissions.createMonitor(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_monitor_permission')
  public async get(@Path() id: number): Promise<MonitorPermissionResponse> {
    return this.permissions.getMonitor(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_monitor_permission')
  public async update(
    @Path() id: number,
    @Body() body: UpdateMonitorPermissionRequest,
  ): Promise<MonitorPermissionResponse> {
    return this.permissions.updateMonitor(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_monitor_permission')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.permissions.removeMonitor(id);
  }
}
