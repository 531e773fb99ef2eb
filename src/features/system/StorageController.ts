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
  StorageService,
  type CreateStorageRequest,
  type StorageResponse,
  type UpdateStorageRequest,
} from './storage-service.js';

export interface PaginatedStorageResponse extends Page<StorageResponse> {}

@Route('api/v3/storage')
@Tags('Storage')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'System permission required')
export class StorageController extends FeatureController {
  private readonly storage = this.services.get(StorageService);

  /**
   * Lists storage areas.
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
  @OperationId('list_storage')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedStorageResponse> {
    return this.storage.list(page, page_size);
  }

  /** Creates a storage area; `do_delete` defaults to 1. */
  @Post()
  @OperationId('create_storage')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateStorageRequest): Promise<StorageResponse> {
    return this.storage.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_storage')
  public async get(@Path() id: number): Promise<StorageResponse> {
    return this.storage.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_storage')
  public async update(@Path() id: number, @Body() body: UpdateStorageRequest): Promise<StorageResponse> {
    return this.storage.update(id, body);
  }

  /**
   * Deletes a storage area no monitor or event uses.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_storage')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors or events still use this storage')
  public async remove(@Path() id: number): Promise<void> {
    await this.storage.remove(id);
  }
}
