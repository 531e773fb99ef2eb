import {
  Body,
  Delete,
  Get,
  OperationId,
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
import { ServerStatsService, type CreateServerStatRequest, type ServerStatResponse } from './server-stats-service.js';

export interface PaginatedServerStatsResponse extends Page<ServerStatResponse> {}

@Route('api/v3/server-stats')
@Tags('Server Stats')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input, or an unknown server_id')
@Response<AppResponseError>(403, 'System permission required')
export class ServerStatsController extends FeatureController {
  private readonly stats = this.services.get(ServerStatsService);

  /**
   * Lists host load samples, oldest first.
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
  @OperationId('list_server_stats')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedServerStatsResponse> {
    return this.stats.list(page, page_size);
  }

  @Post()
  @OperationId('create_server_stat')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateServerStatRequest): Promise<ServerStatResponse> {
    return this.stats.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_server_stat')
  public async get(@Path() id: number): Promise<ServerStatResponse> {
    return this.stats.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_server_stat')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.stats.remove(id);
  }
}
