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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_control_presets')
  public async list(
    @Request() req: ExRequest,
    @Query() monitor_id?: number,
    @Query() page?: number,
    @Query() page_size?: number,
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

  /**
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   * @isInt preset must be an integer >= 0
   * @minimum preset 0
   * @maximum preset 2147483647
   */
  @Get('{monitor_id}/{preset}')
  @OperationId('get_control_preset')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async get(
    @Request() req: ExRequest,
    @Path() monitor_id: number,
    @Path() preset: number,
  ): Promise<ControlPresetResponse> {
    return this.presets.get(currentUser(req), monitor_id, preset);
  }

  /**
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   * @isInt preset must be an integer >= 0
   * @minimum preset 0
   * @maximum preset 2147483647
   */
  @Patch('{monitor_id}/{preset}')
  @OperationId('update_control_preset')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() monitor_id: number,
    @Path() preset: number,
    @Body() body: UpdateControlPresetRequest,
  ): Promise<ControlPresetResponse> {
    return this.presets.update(currentUser(req), monitor_id, preset, body);
  }

  /**
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   * @isInt preset must be an integer >= 0
   * @minimum preset 0
   * @maximum preset 2147483647
   */
  @Delete('{monitor_id}/{preset}')
  @OperationId('delete_control_preset')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() monitor_id: number, @Path() preset: number): Promise<void> {
    await this.presets.remove(currentUser(req), monitor_id, preset);
  }
}
