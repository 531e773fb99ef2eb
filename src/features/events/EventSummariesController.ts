import { Get, OperationId, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import { FeatureController } from '../feature-controller.js';
import {
  EventSummariesService,
  type EventSummaryResponse,
  type PaginatedEventSummariesResponse,
} from './event-summaries-service.js';
import { currentUser } from '../../auth/request-user.js';

@Route('api/v3/event-summaries')
@Tags('Events')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Events permission required')
export class EventSummariesController extends FeatureController {
  private readonly summaries = this.services.get(EventSummariesService);

  /**
   * Event counters of every monitor the caller may see, in monitor order (zeros for a monitor
   * without a summary row). Gated by the Events feature.
   */
  @Get()
  @OperationId('listEventSummaries')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedEventSummariesResponse> {
    return this.summaries.list(currentUser(req), page, page_size);
  }

  @Get('{monitor_id}')
  @OperationId('getEventSummary')
  @Response<AppResponseError>(404, 'No such monitor, or it is hidden')
  public async get(@Request() req: ExRequest, @Path() monitor_id: Id): Promise<EventSummaryResponse> {
    return this.summaries.get(currentUser(req), monitor_id);
  }
}
