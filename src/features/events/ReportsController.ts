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
import type { PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  ReportsService,
  type CreateReportRequest,
  type ReportResponse,
  type UpdateReportRequest,
} from './reports-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedReportsResponse extends Page<ReportResponse> {}

@Route('api/v3/reports')
@Tags('Reports')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System permission required')
export class ReportsController extends FeatureController {
  private readonly reports = this.services.get(ReportsService);

  /**
   * Lists reports in Id order.
   * @param page 1-based page number (default 1).
   * @isLong page
   * @minimum page 0
   */
  @Get()
  @OperationId('list_reports')
  @Response<AppResponseError>(400, 'Invalid paging value')
  public async list(@Query() page?: number, @Query() page_size?: PageSize): Promise<PaginatedReportsResponse> {
    return this.reports.list(page, page_size);
  }

  /** Creates a report. `created_by` is the caller, whatever the body says. */
  @Post()
  @OperationId('create_report')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(400, 'Invalid input or unknown filter')
  public async create(@Request() req: ExRequest, @Body() body: CreateReportRequest): Promise<ReportResponse> {
    return this.reports.create(currentUser(req), body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Get('{id}')
  @OperationId('get_report')
  @Response<AppResponseError>(400, 'Invalid id')
  public async get(@Path() id: number): Promise<ReportResponse> {
    return this.reports.get(id);
  }

  /**
   * Updates a report; both times are required (as in the reference), `created_by` never changes.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Patch('{id}')
  @OperationId('update_report')
  @Response<AppResponseError>(400, 'Invalid input or unknown filter')
  public async update(@Path() id: number, @Body() body: UpdateReportRequest): Promise<ReportResponse> {
    return this.reports.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Delete('{id}')
  @OperationId('delete_report')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(400, 'Invalid id')
  public async remove(@Path() id: number): Promise<void> {
    await this.reports.remove(id);
  }
}
