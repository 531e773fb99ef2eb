import { Body, Get, OperationId, Path, Put, Query, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @param category Only entries of this category (exact match).
   * @param search Only entries whose name contains this text.
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_configs')
  public async list(
    @Query() page?: number,
    @Query() page_size?: number,
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
