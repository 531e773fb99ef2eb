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
  @OperationId('list_manufacturers')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedManufacturersResponse> {
    return this.manufacturers.list(page, page_size);
  }

  @Post()
  @OperationId('create_manufacturer')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A manufacturer with this name exists')
  public async create(@Body() body: CreateManufacturerRequest): Promise<ManufacturerResponse> {
    return this.manufacturers.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_manufacturer')
  public async get(@Path() id: number): Promise<ManufacturerResponse> {
    return this.manufacturers.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_manufacturer')
  @Response<AppResponseError>(409, 'A manufacturer with this name exists')
  public async update(@Path() id: number, @Body() body: UpdateManufacturerRequest): Promise<ManufacturerResponse> {
    return this.manufacturers.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_manufacturer')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Models or monitors still name this manufacturer')
  public async remove(@Path() id: number): Promise<void> {
    await this.manufacturers.remove(id);
  }
}
