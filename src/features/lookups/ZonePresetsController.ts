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
  @OperationId('list_zone_presets')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedZonePresetsResponse> {
    return this.presets.list(page, page_size);
  }

  @Post()
  @OperationId('create_zone_preset')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateZonePresetRequest): Promise<ZonePresetResponse> {
    return this.presets.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_zone_preset')
  public async get(@Path() id: number): Promise<ZonePresetResponse> {
    return this.presets.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_zone_preset')
  public async update(@Path() id: number, @Body() body: UpdateZonePresetRequest): Promise<ZonePresetResponse> {
    return this.presets.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_zone_preset')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.presets.remove(id);
  }
}
