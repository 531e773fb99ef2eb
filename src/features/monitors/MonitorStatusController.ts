import { Body, Get, OperationId, Patch, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  MonitorStatusService,
  type MonitorStatusResponse,
  type UpdateMonitorStatusRequest,
} from './monitor-status-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedMonitorStatusesResponse extends Page<MonitorStatusResponse> {}

@Route('api/v3/monitor-status')
@Tags('Monitor Status')
@Security('jwt', ['monitors'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Monitors permission required, or the monitor is view-only for this account')
export class MonitorStatusController extends FeatureController {
  private readonly statuses = this.services.get(MonitorStatusService);

  /**
   * Status rows of the monitors the caller may see.
   */
  @Get()
  @OperationId('list_monitor_statuses')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedMonitorStatusesResponse> {
    return this.statuses.list(currentUser(req), page, page_size);
  }

  @Get('{monitor_id}')
  @OperationId('get_monitor_status')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR), or no status recorded')
  public async get(@Request() req: ExRequest, @Path() monitor_id: Id): Promise<MonitorStatusResponse> {
    return this.statuses.get(currentUser(req), monitor_id);
  }

  /**
   * Records a heartbeat for the monitor (insert or update).
   */
  @Patch('{monitor_id}')
  @OperationId('update_monitor_status')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)')
  public async update(
    @Request() req: ExRequest,
    @Path() monitor_id: Id,
    @Body() body: UpdateMonitorStatusRequest,
  ): Promise<MonitorStatusResponse> {
    return this.statuses.update(currentUser(req), monitor_id, body);
  }
}
