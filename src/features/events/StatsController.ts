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
  @OperationId('list_stats')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: number,
    @Query() page_size?: number,
  ): Promise<PaginatedStatsResponse> {
    return this.stats.list(currentUser(req), page, page_size);
  }

  @Post()
  @OperationId('create_stat')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateStatRequest): Promise<StatResponse> {
    return this.stats.create(currentUser(req), body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_stat')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: number): Promise<StatResponse> {
    return this.stats.get(currentUser(req), id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_stat')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: number,
    @Body() body: UpdateStatRequest,
  ): Promise<StatResponse> {
    return this.stats.update(currentUser(req), id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_stat')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: number): Promise<void> {
    await this.stats.remove(currentUser(req), id);
  }
}
