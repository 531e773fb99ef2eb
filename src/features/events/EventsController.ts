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
import type { BigId, Id, PageNumber, PageSize } from '../../api/params.js';
import { FeatureController } from '../feature-controller.js';
import {
  EventsService,
  type EventCountsByMonitorResponse,
  type EventCountsResponse,
  type EventCreateRequest,
  type EventResponse,
  type EventUpdateRequest,
  type PaginatedEventsResponse,
} from './events-service.js';
import { currentUser } from '../../auth/request-user.js';

@Route('api/v3/events')
@Tags('Events')
@Security('jwt', ['events'])
@Response<AppResponseError>(403, 'Events permission required')
export class EventsController extends FeatureController {
  private readonly events = this.services.get(EventsService);

  /**
   * Lists events of the monitors the caller may see, newest first by default. Event start/end
   * times are UTC with `Z`; `start_time`/`end_time` take ISO 8601 (with `Z`/offset: an instant;
   * without: ZoneMinder local time).
   * @param monitor_id Only events of this monitor.
   * @param start_time Events that started at or after this time.
   * @param end_time Events that ended at or before this time (open events never match).
   * @param sort One of start_time, end_time, alarm_frames, max_score, avg_score, tot_score, length, id, name, cause, monitor_id, notes, frames (default start_time).
   * @param direction asc or desc (default desc).
   * @param alarm_frames_min Events with at least this many alarm frames.
   * @param archived Only archived (true) or unarchived (false) events.
   * @param cause Case-insensitive substring of the cause.
   * @param name Case-insensitive substring of the name.
   * @param notes Case-insensitive substring of the notes.
   * @param tag_id Comma-separated tag ids: events carrying any of them.
   * @param storage_id Only events on this storage (0: the default storage).
   */
  @Get()
  @OperationId('listEvents')
  @Response<AppResponseError>(400, 'Invalid filter, sort or paging value')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
    @Query() monitor_id?: Id,
    @Query() start_time?: string,
    @Query() end_time?: string,
    @Query() sort?: string,
    @Query() direction?: string,
    @Query() alarm_frames_min?: Id,
    @Query() archived?: boolean,
    @Query() cause?: string,
    @Query() name?: string,
    @Query() notes?: string,
    @Query() tag_id?: string,
    @Query() storage_id?: Id,
  ): Promise<PaginatedEventsResponse> {
    return this.events.list(currentUser(req), {
      page,
      page_size,
      monitor_id,
      start_time,
      end_time,
      sort,
      direction,
      alarm_frames_min,
      archived,
      cause,
      name,
      notes,
      tag_id,
      storage_id,
    });
  }

  /** Creates an event row (no media), with its bucket rows and Event_Summaries counters. */
  @Post()
  @OperationId('createEvent')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(400, 'Invalid input, unknown monitor or storage')
  public async create(@Request() req: ExRequest, @Body() body: EventCreateRequest): Promise<EventResponse> {
    return this.events.create(currentUser(req), body);
  }

  /**
   * Events per hour over the last `hours` hours (hours with no event are left out).
   * @isLong hours must be an integer
   */
  @Get('counts/{hours}')
  @OperationId('getEventCounts')
  @Response<AppResponseError>(400, 'hours is not 1..87600')
  public async counts(@Request() req: ExRequest, @Path() hours: number): Promise<EventCountsResponse> {
    return this.events.counts(currentUser(req), hours);
  }

  /**
   * Events per monitor over the last `hours` hours; every visible monitor is listed.
   * @isLong hours must be an integer
   */
  @Get('counts-by-monitor/{hours}')
  @OperationId('getEventCountsByMonitor')
  @Response<AppResponseError>(400, 'hours is not 1..87600')
  public async countsByMonitor(
    @Request() req: ExRequest,
    @Path() hours: number,
  ): Promise<EventCountsByMonitorResponse> {
    return this.events.countsByMonitor(currentUser(req), hours);
  }

  @Get('{id}')
  @OperationId('getEvent')
  @Response<AppResponseError>(400, 'Invalid id')
  @Response<AppResponseError>(404, 'No such event, or its monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: BigId): Promise<EventResponse> {
    return this.events.get(currentUser(req), id);
  }

  /**
   * Partial update; null clears cause and notes and leaves the other fields unchanged.
   */
  @Patch('{id}')
  @OperationId('updateEvent')
  @Response<AppResponseError>(400, 'Invalid input')
  @Response<AppResponseError>(404, 'No such event, or its monitor is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: BigId,
    @Body() body: EventUpdateRequest,
  ): Promise<EventResponse> {
    return this.events.update(currentUser(req), id, body);
  }

  /**
   * Deletes the event's rows and, when its Storage has DoDelete=1, its directory. Open, archived
   * and locked events are refused with 409.
   */
  @Delete('{id}')
  @OperationId('deleteEvent')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(400, 'Invalid id')
  @Response<AppResponseError>(404, 'No such event, or its monitor is hidden')
  @Response<AppResponseError>(409, 'The event is still being recorded, archived or locked')
  public async remove(@Request() req: ExRequest, @Path() id: BigId): Promise<void> {
    await this.events.remove(currentUser(req), id);
  }
}
