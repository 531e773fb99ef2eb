import {
  Body,
  Delete,
  Get,
  OperationId,
  Patch,
  Path,
  Post,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  ControlPresetsService,
  type ControlPresetResponse,
  type CreateControlPresetRequest,
  type UpdateControlPresetRequest,
} from './control-presets-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedControlPresetsResponse extends Page<ControlPresetResponse> {}

@Route('api/v3/control_presets')
@Tags('Control Presets')
@Security('jwt', ['control'])
@Response<AppResponseError>(400, 'Invalid input, or an unknown monitor_id')
@Response<AppResponseError>(403, 'Control permission required, or the monitor is not editable')
export class ControlPresetsController extends FeatureController {
  private readonly presets = this.services.get(ControlPresetsService);

  /**
   * Lists PTZ presets of the monitors the caller may see.
   * @param monitor_id Only presets of this monitor.
   */
  @Get()
  @OperationId('list_control_presets')
  public async list(
    @Request() req: ExRequest,
    @Query() monitor_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedControlPresetsResponse> {
    return this.presets.list(currentUser(req), monitor_id, page, page_size);
  }

  @Post()
  @OperationId('create_control_preset')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The monitor already has this preset')
  public async create(
    @Request() req: ExRequest,
    @Body() body: CreateControlPresetRequest,
  ): Promise<ControlPresetResponse> {
    return this.presets.create(currentUser(req), body);
  }

  @Get('{monitor_id}/{preset}')
  @OperationId('get_control_preset')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async get(
    @Request() req: ExRequest,
    @Path() monitor_id: Id,
    @Path() preset: Id,
  ): Promise<ControlPresetResponse> {
    return this.presets.get(currentUser(req), monitor_id, preset);
  }

  @Patch('{monitor_id}/{preset}')
  @OperationId('update_control_preset')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() monitor_id: Id,
    @Path() preset: Id,
    @Body() body: UpdateControlPresetRequest,
  ): Promise<ControlPresetResponse> {
    return this.presets.update(currentUser(req), monitor_id, preset, body);
  }

  @Delete('{monitor_id}/{preset}')
  @OperationId('delete_control_preset')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() monitor_id: Id, @Path() preset: Id): Promise<void> {
    await this.presets.remove(currentUser(req), monitor_id, preset);
  }
}
