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
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  MonitorPresetsService,
  type CreateMonitorPresetRequest,
  type MonitorPresetResponse,
  type UpdateMonitorPresetRequest,
} from './monitor-presets-service.js';

export interface PaginatedMonitorPresetsResponse extends Page<MonitorPresetResponse> {}

@Route('api/v3/monitor_presets')
@Tags('Monitor Presets')
@Security('jwt', ['monitors'])
@Response<AppResponseError>(400, 'Invalid input, or an unknown model_id')
@Response<AppResponseError>(403, 'Monitors permission required')
export class MonitorPresetsController extends FeatureController {
  private readonly presets = this.services.get(MonitorPresetsService);

  /**
   * Lists monitor presets (camera templates).
   */
  @Get()
  @OperationId('list_monitor_presets')
  public async list(
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedMonitorPresetsResponse> {
    return this.presets.list(page, page_size);
  }

  @Post()
  @OperationId('create_monitor_preset')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateMonitorPresetRequest): Promise<MonitorPresetResponse> {
    return this.presets.create(body);
  }

  @Get('{id}')
  @OperationId('get_monitor_preset')
  public async get(@Path() id: Id): Promise<MonitorPresetResponse> {
    return this.presets.get(id);
  }

  @Patch('{id}')
  @OperationId('update_monitor_preset')
  public async update(@Path() id: Id, @Body() body: UpdateMonitorPresetRequest): Promise<MonitorPresetResponse> {
    return this.presets.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_monitor_preset')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.presets.remove(id);
  }
}
