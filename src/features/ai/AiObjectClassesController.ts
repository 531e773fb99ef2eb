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
  AiObjectClassesService,
  type AiObjectClassResponse,
  type CreateAiObjectClassRequest,
  type UpdateAiObjectClassRequest,
} from './ai-object-classes-service.js';

export interface PaginatedAiObjectClassesResponse extends Page<AiObjectClassResponse> {}

@Route('api/v3/ai/object-classes')
@Tags('AI')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input, or an unknown dataset_id')
@Response<AppResponseError>(403, 'System permission required')
export class AiObjectClassesController extends FeatureController {
  private readonly classes = this.services.get(AiObjectClassesService);

  /**
   * Lists object classes, optionally only those of one dataset.
   * @param dataset_id Only classes of this dataset.
   */
  @Get()
  @OperationId('list_classes')
  public async list(
    @Query() dataset_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedAiObjectClassesResponse> {
    return this.classes.list(dataset_id, page, page_size);
  }

  /** Creates a class; a `dataset_id` naming no dataset is a 400. */
  @Post()
  @OperationId('create_class')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The dataset already has a class with this name')
  public async create(@Body() body: CreateAiObjectClassRequest): Promise<AiObjectClassResponse> {
    return this.classes.create(body);
  }

  @Get('{id}')
  @OperationId('get_class')
  public async get(@Path() id: Id): Promise<AiObjectClassResponse> {
    return this.classes.get(id);
  }

  @Patch('{id}')
  @OperationId('update_class')
  @Response<AppResponseError>(409, 'The dataset already has a class with this name')
  public async update(@Path() id: Id, @Body() body: UpdateAiObjectClassRequest): Promise<AiObjectClassResponse> {
    return this.classes.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_class')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.classes.remove(id);
  }
}
