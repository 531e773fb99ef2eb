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
  ModelsService,
  type CreateModelRequest,
  type ModelResponse,
  type UpdateModelRequest,
} from './models-service.js';

export interface PaginatedModelsResponse extends Page<ModelResponse> {}

@Route('api/v3/models')
@Tags('Models')
@Security('jwt', ['devices'])
@Response<AppResponseError>(400, 'Invalid input, or an unknown manufacturer_id')
@Response<AppResponseError>(403, 'Devices permission required')
export class ModelsController extends FeatureController {
  private readonly models = this.services.get(ModelsService);

  /**
   * Lists camera models.
   * @param manufacturer_id Only models of this manufacturer.
   */
  @Get()
  @OperationId('list_models')
  public async list(
    @Query() manufacturer_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedModelsResponse> {
    return this.models.list(manufacturer_id, page, page_size);
  }

  @Post()
  @OperationId('create_model')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The manufacturer already has a model with this name')
  public async create(@Body() body: CreateModelRequest): Promise<ModelResponse> {
    return this.models.create(body);
  }

  @Get('{id}')
  @OperationId('get_model')
  public async get(@Path() id: Id): Promise<ModelResponse> {
    return this.models.get(id);
  }

  @Patch('{id}')
  @OperationId('update_model')
  @Response<AppResponseError>(409, 'The manufacturer already has a model with this name')
  public async update(@Path() id: Id, @Body() body: UpdateModelRequest): Promise<ModelResponse> {
    return this.models.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_model')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors or monitor presets still use this model')
  public async remove(@Path() id: Id): Promise<void> {
    await this.models.remove(id);
  }
}
