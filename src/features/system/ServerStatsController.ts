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
import type { Id, PageNumber, PageSize } from '../../api/params.js';
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
   */
  @Get()
  @OperationId('list_server_stats')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedServerStatsResponse> {
    return this.stats.list(page, page_size);
  }

  @Post()
  @OperationId('create_server_stat')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateServerStatRequest): Promise<ServerStatResponse> {
    return this.stats.create(body);
  }

  @Get('{id}')
  @OperationId('get_server_stat')
  public async get(@Path() id: Id): Promise<ServerStatResponse> {
    return this.stats.get(id);
  }

  @Delete('{id}')
  @OperationId('delete_server_stat')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.stats.remove(id);
  }
}
