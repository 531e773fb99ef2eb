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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isInt manufacturer_id must be an integer >= 0
   * @minimum manufacturer_id 0
   * @maximum manufacturer_id 2147483647
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_models')
  public async list(
    @Query() manufacturer_id?: number,
    @Query() page?: number,
    @Query() page_size?: number,
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

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_model')
  public async get(@Path() id: number): Promise<ModelResponse> {
    return this.models.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_model')
  @Response<AppResponseError>(409, 'The manufacturer already has a model with this name')
  public async update(@Path() id: number, @Body() body: UpdateModelRequest): Promise<ModelResponse> {
    return this.models.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_model')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors or monitor presets still use this model')
  public async remove(@Path() id: number): Promise<void> {
    await this.models.remove(id);
  }
}
