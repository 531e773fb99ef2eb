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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isInt parent_id must be an integer >= 0
   * @minimum parent_id 0
   * @maximum parent_id 2147483647
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_maps')
  public async list(
    @Query() parent_id?: number,
    @Query() page?: number,
    @Query() page_size?: number,
  ): Promise<PaginatedMapsResponse> {
    return this.service.list(parent_id, page, page_size);
  }

  @Post()
  @OperationId('create_map')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateMapRequest): Promise<MapResponse> {
    return this.service.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_map')
  public async get(@Path() id: number): Promise<MapResponse> {
    return this.service.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_map')
  public async update(@Path() id: number, @Body() body: UpdateMapRequest): Promise<MapResponse> {
    return this.service.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_map')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.service.remove(id);
  }
}
