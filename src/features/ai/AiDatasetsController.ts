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
  AiDatasetsService,
  type AiDatasetResponse,
  type CreateAiDatasetRequest,
  type UpdateAiDatasetRequest,
} from './ai-datasets-service.js';

export interface PaginatedAiDatasetsResponse extends Page<AiDatasetResponse> {}

@Route('api/v3/ai/datasets')
@Tags('AI')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'System permission required')
export class AiDatasetsController extends FeatureController {
  private readonly datasets = this.services.get(AiDatasetsService);

  /**
   * Lists AI datasets. `page`/`page_size` are accepted as on every other list.
   */
  @Get()
  @OperationId('list_datasets')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedAiDatasetsResponse> {
    return this.datasets.list(page, page_size);
  }

  @Post()
  @OperationId('create_dataset')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A dataset with this name exists')
  public async create(@Body() body: CreateAiDatasetRequest): Promise<AiDatasetResponse> {
    return this.datasets.create(body);
  }

  @Get('{id}')
  @OperationId('get_dataset')
  public async get(@Path() id: Id): Promise<AiDatasetResponse> {
    return this.datasets.get(id);
  }

  @Patch('{id}')
  @OperationId('update_dataset')
  @Response<AppResponseError>(409, 'A dataset with this name exists')
  public async update(@Path() id: Id, @Body() body: UpdateAiDatasetRequest): Promise<AiDatasetResponse> {
    return this.datasets.update(id, body);
  }

  /**
   * Deletes the dataset and its object classes; models that used it keep no dataset.
   */
  @Delete('{id}')
  @OperationId('delete_dataset')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.datasets.remove(id);
  }
}
