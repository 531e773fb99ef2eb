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
  ControlsService,
  type ControlResponse,
  type CreateControlRequest,
  type UpdateControlRequest,
} from './controls-service.js';

export interface PaginatedControlsResponse extends Page<ControlResponse> {}

/** Camera control (PTZ) profiles; gated on Control as PTZ is (the spec leaves it open). */
@Route('api/v3/controls')
@Tags('Controls')
@Security('jwt', ['control'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Control permission required')
export class ControlsController extends FeatureController {
  private readonly controls = this.services.get(ControlsService);

  /**
   * Lists control profiles.
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
  @OperationId('list_controls')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedControlsResponse> {
    return this.controls.list(page, page_size);
  }

  /** Creates a profile; flags and counts left out default to 0, ranges to null. */
  @Post()
  @OperationId('create_control')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateControlRequest): Promise<ControlResponse> {
    return this.controls.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_control')
  public async get(@Path() id: number): Promise<ControlResponse> {
    return this.controls.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_control')
  public async update(@Path() id: number, @Body() body: UpdateControlRequest): Promise<ControlResponse> {
    return this.controls.update(id, body);
  }

  /**
   * Deletes a profile that no monitor uses.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_control')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors still use this profile')
  public async remove(@Path() id: number): Promise<void> {
    await this.controls.remove(id);
  }
}
