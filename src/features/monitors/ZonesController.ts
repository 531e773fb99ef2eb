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
import type { Id, PageNumber, PageSize } from '../../api/params.js';
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
   */
  @Get('monitors/{id}/zones')
  @OperationId('list_by_monitor')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)')
  public async listByMonitor(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedZonesResponse> {
    return this.zones.listByMonitor(currentUser(req), id, page, page_size);
  }

  /**
   * Adds a zone; Area and NumCoords are derived from `coords`.
   * @param id Monitor id.
   */
  @Post('monitors/{id}/zones')
  @OperationId('create')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(404, 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)')
  public async create(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: CreateZoneRequest,
  ): Promise<ZoneResponse> {
    return this.zones.create(currentUser(req), id, body);
  }

  @Get('zones/{id}')
  @OperationId('get')
  @Response<AppResponseError>(404, 'Zone not found, or its monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<ZoneResponse> {
    return this.zones.get(currentUser(req), id);
  }

  /**
   * Partial update (only supplied fields change); a new polygon recomputes Area and NumCoords.
   */
  @Put('zones/{id}')
  @OperationId('update')
  @Response<AppResponseError>(404, 'Zone not found, or its monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateZoneRequest,
  ): Promise<ZoneResponse> {
    return this.zones.update(currentUser(req), id, body);
  }

  @Delete('zones/{id}')
  @OperationId('delete')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Zone not found, or its monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.zones.remove(currentUser(req), id);
  }
}
