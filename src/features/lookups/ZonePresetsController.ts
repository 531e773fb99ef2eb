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
  ZonePresetsService,
  type CreateZonePresetRequest,
  type UpdateZonePresetRequest,
  type ZonePresetResponse,
} from './zone-presets-service.js';

export interface PaginatedZonePresetsResponse extends Page<ZonePresetResponse> {}

@Route('api/v3/zone-presets')
@Tags('Zones')
@Security('jwt', ['monitors'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Monitors permission required')
export class ZonePresetsController extends FeatureController {
  private readonly presets = this.services.get(ZonePresetsService);

  /**
   * Lists zone presets.
   */
  @Get()
  @OperationId('list_zone_presets')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedZonePresetsResponse> {
    return this.presets.list(page, page_size);
  }

  @Post()
  @OperationId('create_zone_preset')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateZonePresetRequest): Promise<ZonePresetResponse> {
    return this.presets.create(body);
  }

  @Get('{id}')
  @OperationId('get_zone_preset')
  public async get(@Path() id: Id): Promise<ZonePresetResponse> {
    return this.presets.get(id);
  }

  @Patch('{id}')
  @OperationId('update_zone_preset')
  public async update(@Path() id: Id, @Body() body: UpdateZonePresetRequest): Promise<ZonePresetResponse> {
    return this.presets.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_zone_preset')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.presets.remove(id);
  }
}
