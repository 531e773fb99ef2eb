import {
  Body,
  Delete,
  Get,
  OperationId,
  Patch,
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
  MonitorsService,
  type AlarmControlRequest,
  type CreateMonitorRequest,
  type MonitorResponse,
  type UpdateMonitorRequest,
  type UpdateMonitorStateRequest,
} from './monitors-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedMonitorsResponse extends Page<MonitorResponse> {}

@Route('api/v3/monitors')
@Tags('Monitors')
@Security('jwt', ['monitors'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Monitors permission required, or the monitor is view-only for this account')
@Response<AppResponseError>(500, 'Database error')
export class MonitorsController extends FeatureController {
  private readonly monitors = this.services.get(MonitorsService);

  /**
   * Lists the monitors the caller may see (row-level ACL applied).
   */
  @Get()
  @OperationId('list_monitors')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedMonitorsResponse> {
    return this.monitors.list(currentUser(req), page, page_size);
  }

  /** Creates a monitor; only `name` is required, other columns take their defaults. Needs an unrestricted row scope. */
  @Post()
  @OperationId('create_monitor')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateMonitorRequest): Promise<MonitorResponse> {
    return this.monitors.create(currentUser(req), body);
  }

  @Get('{id}')
  @OperationId('get_monitor')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<MonitorResponse> {
    return this.monitors.get(currentUser(req), id);
  }

  /**
   * Partial update: only supplied fields change.
   */
  @Patch('{id}')
  @OperationId('update_monitor')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)')
  public async update(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateMonitorRequest,
  ): Promise<MonitorResponse> {
    return this.monitors.update(currentUser(req), id, body);
  }

  /**
   * Deletes the monitor with its zones, group memberships and permission rows (events stay).
   */
  @Delete('{id}')
  @OperationId('delete_monitor')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.monitors.remove(currentUser(req), id);
  }

  /**
   * Start, stop or restart the monitor's capture daemon (takeover mode). In passive mode it
   * answers 503 after validation and the access checks; a daemon that cannot start is a 503 naming why.
   */
  @Patch('{id}/state')
  @OperationId('update_monitor_state')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)')
  @Response<AppResponseError>(
    503,
    'Daemon manager not available (passive mode), or the capture daemon could not be started',
  )
  public async changeState(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateMonitorStateRequest,
  ): Promise<MonitorResponse> {
    return this.monitors.changeState(currentUser(req), id, body);
  }

  /**
   * Force (`on`), suppress (`off`), cancel or query (`status`) an alarm through the capture
   * daemon's shared memory. Answers the monitor; 503 when the monitor is not capturing.
   */
  @Patch('{id}/alarm')
  @OperationId('alarm_control')
  @Response<AppResponseError>(404, 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)')
  @Response<AppResponseError>(
    503,
    'The monitor is not capturing (no shared memory, capturing off or a stale heartbeat)',
  )
  public async alarm(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: AlarmControlRequest,
  ): Promise<MonitorResponse> {
    return this.monitors.alarm(currentUser(req), id, body);
  }
}
