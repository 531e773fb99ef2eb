import {
  Body,
  Delete,
  Get,
  Middlewares,
  OperationId,
  Path,
  Post,
  Put,
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
import { filterShape } from './filter-shape.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import type { PaginatedEventsResponse } from '../events/events-service.js';
import type { FilterQuery } from './filter-query.js';
import {
  FiltersService,
  type CreateFilterRequest,
  type FilterResponse,
  type UpdateFilterRequest,
} from './filters-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedFiltersResponse extends Page<FilterResponse> {}

@Route('api/v3/filters')
@Tags('Filters')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input or filter')
@Response<AppResponseError>(403, 'Events permission required')
export class FiltersController extends FeatureController {
  private readonly filters = this.services.get(FiltersService);

  /**
   * Lists saved filters in Id order.
   * @param page 1-based page number (default 1).
   * @isLong page
   * @minimum page 0
   */
  @Get()
  @OperationId('list_filters')
  public async list(@Query() page?: number, @Query() page_size?: PageSize): Promise<PaginatedFiltersResponse> {
    return this.filters.list(page, page_size);
  }

  /**
   * Saves a filter. Give the condition as `filter` (typed tree) or `query_json` (ZoneMinder's
   * format); it is stored as ZoneMinder's Query_json so zmfilter.pl runs it. Values zmfilter.pl
   * would splice into SQL unescaped (' \ , or a leading/trailing ") are refused. Turning on
   * auto_execute or setting auto_execute_cmd needs System Edit.
   */
  @Post()
  @OperationId('create_filter')
  @SuccessResponse(201, 'Created')
  @Middlewares(filterShape('body.filter'))
  public async create(@Request() req: ExRequest, @Body() body: CreateFilterRequest): Promise<FilterResponse> {
    return this.filters.create(currentUser(req), body);
  }

  /**
   * The events a condition matches, of the monitors the caller may see, paginated like the event
   * list. Needs Events View only (it reads). Fields, operators and relative times: see FilterExpr.
   * @param page 1-based page number (default 1).
   * @isLong page
   * @minimum page 0
   */
  @Post('preview')
  @OperationId('preview_filter')
  @Security('jwt', ['events:View'])
  @Middlewares(filterShape('body'))
  public async preview(
    @Request() req: ExRequest,
    @Body() body: FilterQuery,
    @Query() page?: number,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedEventsResponse> {
    return this.filters.preview(currentUser(req), body, page, page_size);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Get('{id}')
  @OperationId('get_filter')
  public async get(@Path() id: number): Promise<FilterResponse> {
    return this.filters.get(id);
  }

  /**
   * Partial update: only the fields given change.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Put('{id}')
  @OperationId('update_filter')
  @Middlewares(filterShape('body.filter'))
  public async update(
    @Request() req: ExRequest,
    @Path() id: number,
    @Body() body: UpdateFilterRequest,
  ): Promise<FilterResponse> {
    return this.filters.update(currentUser(req), id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Delete('{id}')
  @OperationId('delete_filter')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.filters.remove(id);
  }
}
