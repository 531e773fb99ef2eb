import {
  Body,
  Delete,
  Get,
  OperationId,
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
import type { PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import { EventsTagsService, type CreateEventTagRequest, type EventTagResponse } from './events-tags-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedEventsTagsResponse extends Page<EventTagResponse> {}

@Route('api/v3/events-tags')
@Tags('Events Tags')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Events permission required')
export class EventsTagsController extends FeatureController {
  private readonly eventsTags = this.services.get(EventsTagsService);

  /**
   * Lists tag assignments of events the caller may see, by tag then event.
   * @param event_id Only assignments of this event.
   * @param tag_id Only assignments of this tag.
   * @param page 1-based page number (default 1).
   * @isLong event_id must be an integer >= 0
   * @minimum event_id 0
   * @isLong tag_id must be an integer >= 0
   * @minimum tag_id 0
   * @isLong page
   * @minimum page 0
   */
  @Get()
  @OperationId('list_events_tags')
  public async list(
    @Request() req: ExRequest,
    @Query() event_id?: number,
    @Query() tag_id?: number,
    @Query() page?: number,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedEventsTagsResponse> {
    return this.eventsTags.list(currentUser(req), { event_id, tag_id, page, page_size });
  }

  /**
   * Tags an event. The event must exist and be visible, the tag must exist (400 otherwise); an
   * existing assignment is a 409. `assigned_by` is always the caller.
   */
  @Post()
  @OperationId('create_event_tag')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'Already assigned')
  public async create(@Request() req: ExRequest, @Body() body: CreateEventTagRequest): Promise<EventTagResponse> {
    return this.eventsTags.create(currentUser(req), body);
  }

  /**
   * @isLong tag_id must be an integer >= 0
   * @minimum tag_id 0
   * @isLong event_id must be an integer >= 0
   * @minimum event_id 0
   */
  @Get('{tag_id}/{event_id}')
  @OperationId('get_event_tag')
  @Response<AppResponseError>(404, 'Not assigned, or the event is hidden')
  public async get(
    @Request() req: ExRequest,
    @Path() tag_id: number,
    @Path() event_id: number,
  ): Promise<EventTagResponse> {
    return this.eventsTags.get(currentUser(req), tag_id, event_id);
  }

  /**
   * @isLong tag_id must be an integer >= 0
   * @minimum tag_id 0
   * @isLong event_id must be an integer >= 0
   * @minimum event_id 0
   */
  @Delete('{tag_id}/{event_id}')
  @OperationId('delete_event_tag')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not assigned, or the event is hidden')
  public async remove(@Request() req: ExRequest, @Path() tag_id: number, @Path() event_id: number): Promise<void> {
    await this.eventsTags.remove(currentUser(req), tag_id, event_id);
  }
}
