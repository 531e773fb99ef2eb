import { Delete, Get, OperationId, Path, Query, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppResponseError, MessageResponse } from '../../api/envelopes.js';
import type { PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import { LogsService, type LogResponse } from './logs-service.js';

export interface PaginatedLogsResponse extends Page<LogResponse> {}

@Route('api/v3/logs')
@Tags('Logs')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System permission required')
export class LogsController extends FeatureController {
  private readonly logs = this.services.get(LogsService);

  /**
   * Lists ZoneMinder's log entries, newest first by default.
   * @param page 1-based page number (default 1).
   * @param component Only this component (e.g. zmc_m1, web_php).
   * @param min_level This level and more severe: panic, fatal, error, warning, info or debug.
   * @param level Only this level (PANIC -4 … DEBUG 9).
   * @param search Case-insensitive substring of the message.
   * @param start Entries at or after this Unix time (seconds, fractions allowed).
   * @param end Entries at or before this Unix time.
   * @param sort asc or desc by time (default desc).
   * @param server_id Only entries of this server.
   * @isLong page
   * @minimum page 0
   * @isInt level must be an integer
   * @isDouble start must be a number
   * @isDouble end must be a number
   * @isInt server_id must be an integer >= 0
   * @minimum server_id 0
   */
  @Get()
  @OperationId('listLogs')
  @Response<AppResponseError>(400, 'Invalid filter, sort or paging value')
  public async list(
    @Query() page?: number,
    @Query() page_size?: PageSize,
    @Query() component?: string,
    @Query() min_level?: string,
    @Query() level?: number,
    @Query() search?: string,
    @Query() start?: number,
    @Query() end?: number,
    @Query() sort?: string,
    @Query() server_id?: number,
  ): Promise<PaginatedLogsResponse> {
    return this.logs.list({ page, page_size, component, min_level, level, search, start, end, sort, server_id });
  }

  /**
   * Deletes the log entries the filters match (the same filters as the list). Without any
   * filter the request is refused (400) unless `all=true`: clearing the whole log is always an
   * explicit choice.
   * @param component Only this component.
   * @param min_level This level and more severe: panic, fatal, error, warning, info or debug.
   * @param level Only this level.
   * @param search Case-insensitive substring of the message.
   * @param start Entries at or after this Unix time (seconds).
   * @param end Entries at or before this Unix time.
   * @param server_id Only entries of this server.
   * @param all true: delete every entry when no other filter is given.
   * @isInt level must be an integer
   * @isDouble start must be a number
   * @isDouble end must be a number
   * @isInt server_id must be an integer >= 0
   * @minimum server_id 0
   */
  @Delete()
  @OperationId('clearLogs')
  @Response<AppResponseError>(400, 'No filter and no all=true, or an invalid filter')
  public async clear(
    @Query() component?: string,
    @Query() min_level?: string,
    @Query() level?: number,
    @Query() search?: string,
    @Query() start?: number,
    @Query() end?: number,
    @Query() server_id?: number,
    @Query() all?: boolean,
  ): Promise<MessageResponse> {
    return this.logs.clear({ component, min_level, level, search, start, end, server_id }, all);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Get('{id}')
  @OperationId('get_log')
  public async get(@Path() id: number): Promise<LogResponse> {
    return this.logs.get(id);
  }
}
