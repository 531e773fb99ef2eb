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
import type { PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  ObjectTypesService,
  type CreateObjectTypeRequest,
  type ObjectTypeResponse,
  type UpdateObjectTypeRequest,
} from './object-types-service.js';

export interface PaginatedObjectTypesResponse extends Page<ObjectTypeResponse> {}

@Route('api/v3/object-types')
@Tags('Object Types')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Events permission required')
export class ObjectTypesController extends FeatureController {
  private readonly objectTypes = this.services.get(ObjectTypesService);

  /**
   * Lists object types (detection labels).
   */
  @Get()
  @OperationId('list_object_types')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedObjectTypesResponse> {
    return this.objectTypes.list(page, page_size);
  }

  @Post()
  @OperationId('create_object_type')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'An object type with this name exists')
  public async create(@Body() body: CreateObjectTypeRequest): Promise<ObjectTypeResponse> {
    return this.objectTypes.create(body);
  }

  /**
   * @param id Object type id (signed, as in the table).
   * @isInt id must be an integer
   * @minimum id -2147483648
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_object_type')
  public async get(@Path() id: number): Promise<ObjectTypeResponse> {
    return this.objectTypes.get(id);
  }

  /**
   * @param id Object type id (signed, as in the table).
   * @isInt id must be an integer
   * @minimum id -2147483648
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_object_type')
  @Response<AppResponseError>(409, 'An object type with this name exists')
  public async update(@Path() id: number, @Body() body: UpdateObjectTypeRequest): Promise<ObjectTypeResponse> {
    return this.objectTypes.update(id, body);
  }

  /**
   * @param id Object type id (signed, as in the table).
   * @isInt id must be an integer
   * @minimum id -2147483648
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_object_type')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.objectTypes.remove(id);
  }
}
