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
  AiModelsService,
  type AiModelResponse,
  type CreateAiModelRequest,
  type UpdateAiModelRequest,
} from './ai-models-service.js';

export interface PaginatedAiModelsResponse extends Page<AiModelResponse> {}

@Route('api/v3/ai/models')
@Tags('AI')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input, or an unknown dataset_id')
@Response<AppResponseError>(403, 'System permission required')
export class AiModelsController extends FeatureController {
  private readonly models = this.services.get(AiModelsService);

  /**
   * Lists AI models with their dataset name resolved.
   */
  @Get()
  @OperationId('list_ai_models')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedAiModelsResponse> {
    return this.models.list(page, page_size);
  }

  /** Creates a model; a `dataset_id` naming no dataset is a 400. */
  @Post()
  @OperationId('create_ai_model')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A model with this name exists')
  public async create(@Body() body: CreateAiModelRequest): Promise<AiModelResponse> {
    return this.models.create(body);
  }

  @Get('{id}')
  @OperationId('get_ai_model')
  public async get(@Path() id: Id): Promise<AiModelResponse> {
    return this.models.get(id);
  }

  @Patch('{id}')
  @OperationId('update_ai_model')
  @Response<AppResponseError>(409, 'A model with this name exists')
  public async update(@Path() id: Id, @Body() body: UpdateAiModelRequest): Promise<AiModelResponse> {
    return this.models.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_ai_model')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.models.remove(id);
  }
}
