import {
  Body,
  Delete,
  Get,
  OperationId,
  Path,
  Post,
  Put,
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
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import { ZonesService, type CreateZoneRequest, type UpdateZoneRequest, type ZoneResponse } from './zones-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedZonesResponse extends Page<ZoneResponse> {}

// The reference's operationIds for these routes are the bare verbs (list_by_monitor, create, get, …).
@Route('api/v3')
@Tags('Zones')
@Security('jwt', ['monitors'])
@Response<AppResponseError>(400, 'Invalid input, or coordinates that do not form a polygon')
@Response<AppResponseError>(403, 'Monitors permission required, or the monitor is view-only for this account')
export class ZonesController extends FeatureController {
  private readonly zones = this.services.get(ZonesService);

  /**
   * The zones of a monitor.
   * @param id Monitor id.
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get('monitors/{id}/zones')
  @OperationId('list_by_monitor')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)')
  public async listByMonitor(
    @Request() req: ExRequest,
    @Path() id: number,
    @Query() page?: number,
    @Query() page_size?: number,
  ): Promise<PaginatedZonesResponse> {
    return this.zones.listByMonitor(currentUser(req), id, page, page_size);
  }

  /**
   * Adds a zone; Area and NumCoords are derived from `coords`.
   * @param id Monitor id.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Post('monitors/{id}/zones')
  @OperationId('create')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)')
  public async create(
    @Request() req: ExRequest,
    @Path() id: number,
    @Body() body: CreateZoneRequest,
  ): Promise<ZoneResponse> {
    return this.zones.create(currentUser(req), id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('zones/{id}')
  @OperationId('get')
  @Response<AppResponseError>(404, 'Zone not found, or its monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: number): Promise<ZoneResponse> {
    return this.zones.get(currentUser(req), id);
  }

  /**
   * Partial update (only supplied fields change); a new polygon recomputes Area and NumCoords.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Put('zones/{id}')
  @OperationId('update')
  @Response<AppResponseError>(404, 'Zone not found, or its monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: number,
    @Body() body: UpdateZoneRequest,
  ): Promise<ZoneResponse> {
    return this.zones.update(currentUser(req), id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('zones/{id}')
  @OperationId('delete')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Zone not found, or its monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: number): Promise<void> {
    await this.zones.remove(currentUser(req), id);
  }
}
