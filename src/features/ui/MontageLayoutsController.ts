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
  MontageLayoutsService,
  type CreateMontageLayoutRequest,
  type MontageLayoutResponse,
  type UpdateMontageLayoutRequest,
} from './montage-layouts-service.js';

export interface PaginatedMontageLayoutsResponse extends Page<MontageLayoutResponse> {}

@Route('api/v3/montage_layouts')
@Tags('Montage Layouts')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input, positions that are not JSON, or an unknown user_id')
@Response<AppResponseError>(403, 'System permission required')
export class MontageLayoutsController extends FeatureController {
  private readonly layouts = this.services.get(MontageLayoutsService);

  /**
   * Lists montage layouts (all users').
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
  @OperationId('list_montage_layouts')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedMontageLayoutsResponse> {
    return this.layouts.list(page, page_size);
  }

  @Post()
  @OperationId('create_montage_layout')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateMontageLayoutRequest): Promise<MontageLayoutResponse> {
    return this.layouts.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_montage_layout')
  public async get(@Path() id: number): Promise<MontageLayoutResponse> {
    return this.layouts.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_montage_layout')
  public async update(@Path() id: number, @Body() body: UpdateMontageLayoutRequest): Promise<MontageLayoutResponse> {
    return this.layouts.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_montage_layout')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.layouts.remove(id);
  }
}
