import { Get, OperationId, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import { SearchService, type SearchResponse } from './search-service.js';
import { currentUser } from '../../auth/request-user.js';

@Route('api/v3/search')
@Tags('Search')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid query')
@Response<AppResponseError>(403, 'Events permission required')
@Response<AppResponseError>(503, 'Search backend unavailable (e.g. a table it needs is missing)')
export class SearchController extends FeatureController {
  private readonly searcher = this.services.get(SearchService);

  /**
   * Searches events of the monitors the caller may see: every word of `q` must occur in the
   * event's name, cause or notes (case-insensitive). Best matches first, then newest.
   * @param q Words to find (at most 10 words, 256 characters).
   * @param monitor_id Only events of this monitor.
   * @param from Events that started at or after this Unix time (seconds).
   * @param to Events that started at or before this Unix time (seconds).
   * @param cls An object class (e.g. person): detected in the event, or named in its notes.
   * @param k How many citations to return, 1..100 (default 10).
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @isLong from must be an integer
   * @isLong to must be an integer
   * @isInt k must be an integer >= 0
   * @minimum k 0
   */
  @Get()
  @OperationId('searchEvents')
  public async search(
    @Request() req: ExRequest,
    @Query() q: string,
    @Query() monitor_id?: number,
    @Query() from?: number,
    @Query() to?: number,
    @Query('class') cls?: string,
    @Query() k?: number,
  ): Promise<SearchResponse> {
    return this.searcher.search(currentUser(req), { q, monitor_id, from, to, class: cls, k });
  }
}
