import { Get, OperationId, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
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
  @OperationId('listEventSummaries')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: number,
    @Query() page_size?: number,
  ): Promise<PaginatedEventSummariesResponse> {
    return this.summaries.list(currentUser(req), page, page_size);
  }

  /**
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   */
  @Get('{monitor_id}')
  @OperationId('getEventSummary')
  @Response<AppResponseError>(404, 'No such monitor, or it is hidden')
  public async get(@Request() req: ExRequest, @Path() monitor_id: number): Promise<EventSummaryResponse> {
    return this.summaries.get(currentUser(req), monitor_id);
  }
}
