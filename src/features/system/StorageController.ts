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
   */
  @Get()
  @OperationId('list_storage')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedStorageResponse> {
    return this.storage.list(page, page_size);
  }

  /** Creates a storage area; `do_delete` defaults to 1. */
  @Post()
  @OperationId('create_storage')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateStorageRequest): Promise<StorageResponse> {
    return this.storage.create(body);
  }

  @Get('{id}')
  @OperationId('get_storage')
  public async get(@Path() id: Id): Promise<StorageResponse> {
    return this.storage.get(id);
  }

  @Patch('{id}')
  @OperationId('update_storage')
  public async update(@Path() id: Id, @Body() body: UpdateStorageRequest): Promise<StorageResponse> {
    return this.storage.update(id, body);
  }

  /**
   * Deletes a storage area no monitor or event uses.
   */
  @Delete('{id}')
  @OperationId('delete_storage')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors or events still use this storage')
  public async remove(@Path() id: Id): Promise<void> {
    await this.storage.remove(id);
  }
}
