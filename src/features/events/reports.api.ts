import { controller } from '../controller-spec.js';

export default controller({
  name: 'ReportsController',
  route: 'api/v3/reports',
  tag: 'Reports',
  security: ['system'],
  responses: { 403: 'System permission required' },
  imports: {
    './reports-service.js': ['ReportsService', 'CreateReportRequest', 'ReportResponse', 'UpdateReportRequest'],
  },
  services: { reports: 'ReportsService' },
  pages: { PaginatedReportsResponse: 'ReportResponse' },
  operations: [
    [
      'GET / list_reports = reports.list(page?: number, page_size?: PageSize): PaginatedReportsResponse',
      {
        doc: [
          'Lists reports in Id order.',
          '@param page 1-based page number (default 1).',
          '@isLong page',
          '@minimum page 0',
        ],
        responses: { 400: 'Invalid paging value' },
      },
    ],
    [
      'POST / create_report = reports.create(user, body: CreateReportRequest): ReportResponse',
      {
        doc: ['Creates a report. `created_by` is the caller, whatever the body says.'],
        status: [201, 'Created'],
        responses: { 400: 'Invalid input or unknown filter' },
      },
    ],
    [
      'GET {id} get_report = reports.get(id: number): ReportResponse',
      { doc: ['@isInt id must be an integer >= 0', '@minimum id 0'], responses: { 400: 'Invalid id' } },
    ],
    [
      'PATCH {id} update_report = reports.update(id: number, body: UpdateReportRequest): ReportResponse',
      {
        doc: [
          'Updates a report; both times are required (as in the reference), `created_by` never changes.',
          '@isInt id must be an integer >= 0',
          '@minimum id 0',
        ],
        responses: { 400: 'Invalid input or unknown filter' },
      },
    ],
    [
      'DELETE {id} delete_report = reports.remove(id: number)',
      {
        doc: ['@isInt id must be an integer >= 0', '@minimum id 0'],
        status: [204, 'Deleted'],
        responses: { 400: 'Invalid id' },
      },
    ],
  ],
});
