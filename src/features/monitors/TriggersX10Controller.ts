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
  TriggersX10Service,
  type CreateTriggerX10Request,
  type TriggerX10Response,
  type UpdateTriggerX10Request,
} from './triggers-x10-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedTriggersX10Response extends Page<TriggerX10Response> {}

@Route('api/v3/triggers_x10')
@Tags('TriggersX10')
@Security('jwt', ['control'])
@Response<AppResponseError>(400, 'Invalid input, or an unknown monitor_id')
@Response<AppResponseError>(403, 'Control permission required, or the monitor is view-only for this account')
export class TriggersX10Controller extends FeatureController {
  private readonly triggers = this.services.get(TriggersX10Service);

  /**
   * Lists X10 triggers of the monitors the caller may see.
   */
  @Get()
  @OperationId('list_triggers_x10')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedTriggersX10Response> {
    return this.triggers.list(currentUser(req), page, page_size);
  }

  @Post()
  @OperationId('create_trigger_x10')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The monitor already has an X10 trigger')
  public async create(@Request() req: ExRequest, @Body() body: CreateTriggerX10Request): Promise<TriggerX10Response> {
    return this.triggers.create(currentUser(req), body);
  }

  @Get('{monitor_id}')
  @OperationId('get_trigger_x10')
  @Response<AppResponseError>(404, 'No trigger for this monitor, or the monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() monitor_id: Id): Promise<TriggerX10Response> {
    return this.triggers.get(currentUser(req), monitor_id);
  }

  @Patch('{monitor_id}')
  @OperationId('update_trigger_x10')
  @Response<AppResponseError>(404, 'No trigger for this monitor, or the monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() monitor_id: Id,
    @Body() body: UpdateTriggerX10Request,
  ): Promise<TriggerX10Response> {
    return this.triggers.update(currentUser(req), monitor_id, body);
  }

  @Delete('{monitor_id}')
  @OperationId('delete_trigger_x10')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'No trigger for this monitor, or the monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() monitor_id: Id): Promise<void> {
    await this.triggers.remove(currentUser(req), monitor_id);
  }
}
