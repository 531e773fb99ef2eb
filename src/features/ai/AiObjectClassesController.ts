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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isInt dataset_id must be an integer >= 0
   * @minimum dataset_id 0
   * @maximum dataset_id 2147483647
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_classes')
  public async list(
    @Query() dataset_id?: number,
    @Query() page?: number,
    @Query() page_size?: number,
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

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_class')
  public async get(@Path() id: number): Promise<AiObjectClassResponse> {
    return this.classes.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_class')
  @Response<AppResponseError>(409, 'The dataset already has a class with this name')
  public async update(@Path() id: number, @Body() body: UpdateAiObjectClassRequest): Promise<AiObjectClassResponse> {
    return this.classes.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_class')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.classes.remove(id);
  }
}
