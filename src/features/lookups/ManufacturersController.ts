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
  ManufacturersService,
  type CreateManufacturerRequest,
  type ManufacturerResponse,
  type UpdateManufacturerRequest,
} from './manufacturers-service.js';

export interface PaginatedManufacturersResponse extends Page<ManufacturerResponse> {}

@Route('api/v3/manufacturers')
@Tags('Manufacturers')
@Security('jwt', ['devices'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Devices permission required')
export class ManufacturersController extends FeatureController {
  private readonly manufacturers = this.services.get(ManufacturersService);

  /**
   * Lists camera manufacturers.
   */
  @Get()
  @OperationId('list_manufacturers')
  public async list(
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedManufacturersResponse> {
    return this.manufacturers.list(page, page_size);
  }

  @Post()
  @OperationId('create_manufacturer')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A manufacturer with this name exists')
  public async create(@Body() body: CreateManufacturerRequest): Promise<ManufacturerResponse> {
    return this.manufacturers.create(body);
  }

  @Get('{id}')
  @OperationId('get_manufacturer')
  public async get(@Path() id: Id): Promise<ManufacturerResponse> {
    return this.manufacturers.get(id);
  }

  @Patch('{id}')
  @OperationId('update_manufacturer')
  @Response<AppResponseError>(409, 'A manufacturer with this name exists')
  public async update(@Path() id: Id, @Body() body: UpdateManufacturerRequest): Promise<ManufacturerResponse> {
    return this.manufacturers.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_manufacturer')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Models or monitors still name this manufacturer')
  public async remove(@Path() id: Id): Promise<void> {
    await this.manufacturers.remove(id);
  }
}
