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
  @OperationId('list_ai_models')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedAiModelsResponse> {
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

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_ai_model')
  public async get(@Path() id: number): Promise<AiModelResponse> {
    return this.models.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_ai_model')
  @Response<AppResponseError>(409, 'A model with this name exists')
  public async update(@Path() id: number, @Body() body: UpdateAiModelRequest): Promise<AiModelResponse> {
    return this.models.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_ai_model')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.models.remove(id);
  }
}
