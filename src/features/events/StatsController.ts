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
import { StatsService, type CreateStatRequest, type StatResponse, type UpdateStatRequest } from './stats-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedStatsResponse extends Page<StatResponse> {}

@Route('api/v3/stats')
@Tags('Stats')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input, or a monitor, zone or event that does not exist or does not match')
@Response<AppResponseError>(403, 'System permission required, or the monitor is view-only for this account')
export class StatsController extends FeatureController {
  private readonly stats = this.services.get(StatsService);

  /**
   * Lists zone alarm statistics of the monitors the caller may see.
   */
  @Get()
  @OperationId('list_stats')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedStatsResponse> {
    return this.stats.list(currentUser(req), page, page_size);
  }

  @Post()
  @OperationId('create_stat')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateStatRequest): Promise<StatResponse> {
    return this.stats.create(currentUser(req), body);
  }

  @Get('{id}')
  @OperationId('get_stat')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<StatResponse> {
    return this.stats.get(currentUser(req), id);
  }

  @Patch('{id}')
  @OperationId('update_stat')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateStatRequest,
  ): Promise<StatResponse> {
    return this.stats.update(currentUser(req), id, body);
  }

  @Delete('{id}')
  @OperationId('delete_stat')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.stats.remove(currentUser(req), id);
  }
}
