import { Body, Get, OperationId, Path, Put, Query, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import type { PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  ConfigsService,
  type CategoryCountResponse,
  type ConfigResponse,
  type UpdateConfigRequest,
} from './configs-service.js';

export interface PaginatedConfigsResponse extends Page<ConfigResponse> {}

@Route('api/v3/configs')
@Tags('Config')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'System permission required')
@Response<AppResponseError>(500, 'Database error')
export class ConfigsController extends FeatureController {
  private readonly configs = this.services.get(ConfigsService);

  /**
   * Lists configuration entries; private values are masked.
   * @param category Only entries of this category (exact match).
   * @param search Only entries whose name contains this text.
   */
  @Get()
  @OperationId('list_configs')
  public async list(
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
    @Query() category?: string,
    @Query() search?: string,
  ): Promise<PaginatedConfigsResponse> {
    return this.configs.list({ page, pageSize: page_size, category, search });
  }

  /** Every category with its number of entries: a bare array, not paginated. */
  @Get('categories')
  @OperationId('list_categories')
  public async categories(): Promise<CategoryCountResponse[]> {
    return this.configs.categories();
  }

  /** One entry by name; an unknown name is 404 CONFIG_NOT_FOUND_ERROR. */
  @Get('{name}')
  @OperationId('get_config')
  @Response<AppResponseError>(404, 'No entry with this name')
  public async get(@Path() name: string): Promise<ConfigResponse> {
    return this.configs.get(name);
  }

  /** Sets an entry's value, checked against its type. A read-only entry is 403. */
  @Put('{name}')
  @OperationId('update_config')
  @Response<AppResponseError>(403, 'System Edit required, or the entry is read-only')
  @Response<AppResponseError>(404, 'No entry with this name')
  public async update(@Path() name: string, @Body() body: UpdateConfigRequest): Promise<ConfigResponse> {
    return this.configs.update(name, body);
  }
}
