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
import type { BigId, PageNumber, PageSize } from '../../api/params.js';
import { FeatureController } from '../feature-controller.js';
import {
  EventDataService,
  type CreateEventDataRequest,
  type EventDataResponse,
  type PaginatedEventDataResponse,
  type UpdateEventDataRequest,
} from './event-data-service.js';
import { currentUser } from '../../auth/request-user.js';

@Route('api/v3/event-data')
@Tags('Event Data')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Events permission required')
export class EventDataController extends FeatureController {
  private readonly eventData = this.services.get(EventDataService);

  /**
   * Lists event data rows in Id order; with `event_id`, the rows of that event (none when the
   * event is missing or hidden). Gated by the Events feature.
   * @param event_id Only rows of this event.
   */
  @Get()
  @OperationId('list_event_data')
  public async list(
    @Request() req: ExRequest,
    @Query() event_id?: BigId,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedEventDataResponse> {
    return this.eventData.list(currentUser(req), event_id, page, page_size);
  }

  @Post()
  @OperationId('create_event_data')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateEventDataRequest): Promise<EventDataResponse> {
    return this.eventData.create(currentUser(req), body);
  }

  @Get('{id}')
  @OperationId('get_event_data')
  @Response<AppResponseError>(404, 'No such row, or its monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: BigId): Promise<EventDataResponse> {
    return this.eventData.get(currentUser(req), id);
  }

  @Patch('{id}')
  @OperationId('update_event_data')
  @Response<AppResponseError>(404, 'No such row, or its monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: BigId,
    @Body() body: UpdateEventDataRequest,
  ): Promise<EventDataResponse> {
    return this.eventData.update(currentUser(req), id, body);
  }

  @Delete('{id}')
  @OperationId('delete_event_data')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'No such row, or its monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: BigId): Promise<void> {
    await this.eventData.remove(currentUser(req), id);
  }
}
