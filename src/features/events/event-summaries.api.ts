import { controller } from '../controller-spec.js';

export default controller({
  name: 'EventSummariesController',
  route: 'api/v3/event-summaries',
  tag: 'Events',
  security: ['events'],
  responses: { 400: 'Invalid input', 403: 'Events permission required' },
  imports: {
    './event-summaries-service.js': [
      'EventSummariesService',
      'EventSummaryResponse',
      'PaginatedEventSummariesResponse',
    ],
  },
  services: { summaries: 'EventSummariesService' },
  operations: [
    [
      'GET / listEventSummaries = summaries.list(user, page?: PageNumber, page_size?: PageSize): PaginatedEventSummariesResponse',
      {
        doc: [
          'Event counters of every monitor the caller may see, in monitor order (zeros for a monitor',
          'without a summary row). Gated by the Events feature.',
        ],
      },
    ],
    [
      'GET {monitor_id} getEventSummary = summaries.get(user, monitor_id: Id): EventSummaryResponse',
      { responses: { 404: 'No such monitor, or it is hidden' } },
    ],
  ],
});
