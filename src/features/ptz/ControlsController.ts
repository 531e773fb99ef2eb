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
   */
  @Get()
  @OperationId('list_controls')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedControlsResponse> {
    return this.controls.list(page, page_size);
  }

  /** Creates a profile; flags and counts left out default to 0, ranges to null. */
  @Post()
  @OperationId('create_control')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateControlRequest): Promise<ControlResponse> {
    return this.controls.create(body);
  }

  @Get('{id}')
  @OperationId('get_control')
  public async get(@Path() id: Id): Promise<ControlResponse> {
    return this.controls.get(id);
  }

  @Patch('{id}')
  @OperationId('update_control')
  public async update(@Path() id: Id, @Body() body: UpdateControlRequest): Promise<ControlResponse> {
    return this.controls.update(id, body);
  }

  /**
   * Deletes a profile that no monitor uses.
   */
  @Delete('{id}')
  @OperationId('delete_control')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors still use this profile')
  public async remove(@Path() id: Id): Promise<void> {
    await this.controls.remove(id);
  }
}
