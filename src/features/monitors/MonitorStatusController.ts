import { Body, Get, OperationId, Patch, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
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
  @OperationId('list_monitor_statuses')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: number,
    @Query() page_size?: number,
  ): Promise<PaginatedMonitorStatusesResponse> {
    return this.statuses.list(currentUser(req), page, page_size);
  }

  /**
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   */
  @Get('{monitor_id}')
  @OperationId('get_monitor_status')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR), or no status recorded')
  public async get(@Request() req: ExRequest, @Path() monitor_id: number): Promise<MonitorStatusResponse> {
    return this.statuses.get(currentUser(req), monitor_id);
  }

  /**
   * Records a heartbeat for the monitor (insert or update).
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   */
  @Patch('{monitor_id}')
  @OperationId('update_monitor_status')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)')
  public async update(
    @Request() req: ExRequest,
    @Path() monitor_id: number,
    @Body() body: UpdateMonitorStatusRequest,
  ): Promise<MonitorStatusResponse> {
    return this.statuses.update(currentUser(req), monitor_id, body);
  }
}
