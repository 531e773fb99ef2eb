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
   */
  @Get()
  @OperationId('list_montage_layouts')
  public async list(
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedMontageLayoutsResponse> {
    return this.layouts.list(page, page_size);
  }

  @Post()
  @OperationId('create_montage_layout')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateMontageLayoutRequest): Promise<MontageLayoutResponse> {
    return this.layouts.create(body);
  }

  @Get('{id}')
  @OperationId('get_montage_layout')
  public async get(@Path() id: Id): Promise<MontageLayoutResponse> {
    return this.layouts.get(id);
  }

  @Patch('{id}')
  @OperationId('update_montage_layout')
  public async update(@Path() id: Id, @Body() body: UpdateMontageLayoutRequest): Promise<MontageLayoutResponse> {
    return this.layouts.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_montage_layout')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.layouts.remove(id);
  }
}
