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
import { MapsService, type CreateMapRequest, type MapResponse, type UpdateMapRequest } from './maps-service.js';

export interface PaginatedMapsResponse extends Page<MapResponse> {}

// Maps (ZoneMinder's Maps table). Site-wide configuration: System-gated.
@Route('api/v3/maps')
@Tags('Maps')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input: bad coordinates, unknown parent, a parent cycle')
@Response<AppResponseError>(403, 'System permission required')
export class MapsController extends FeatureController {
  private readonly service = this.services.get(MapsService);

  /**
   * Lists maps.
   * @param parent_id Only the child maps of this map.
   */
  @Get()
  @OperationId('list_maps')
  public async list(
    @Query() parent_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedMapsResponse> {
    return this.service.list(parent_id, page, page_size);
  }

  @Post()
  @OperationId('create_map')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateMapRequest): Promise<MapResponse> {
    return this.service.create(body);
  }

  @Get('{id}')
  @OperationId('get_map')
  public async get(@Path() id: Id): Promise<MapResponse> {
    return this.service.get(id);
  }

  @Patch('{id}')
  @OperationId('update_map')
  public async update(@Path() id: Id, @Body() body: UpdateMapRequest): Promise<MapResponse> {
    return this.service.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_map')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.service.remove(id);
  }
}
