import { controller } from '../controller-spec.js';

export default controller({
  name: 'StatsController',
  route: 'api/v3/stats',
  tag: 'Stats',
  security: ['system'],
  responses: {
    400: 'Invalid input, or a monitor, zone or event that does not exist or does not match',
    403: 'System permission required, or the monitor is view-only for this account',
  },
  imports: { './stats-service.js': ['StatsService', 'CreateStatRequest', 'StatResponse', 'UpdateStatRequest'] },
  services: { stats: 'StatsService' },
  pages: { PaginatedStatsResponse: 'StatResponse' },
  operations: [
    [
      'GET / list_stats = stats.list(user, page?: PageNumber, page_size?: PageSize): PaginatedStatsResponse',
      { doc: ['Lists zone alarm statistics of the monitors the caller may see.'] },
    ],
    ['POST / create_stat = stats.create(user, body: CreateStatRequest): StatResponse', { status: [201, 'Created'] }],
    [
      'GET {id} get_stat = stats.get(user, id: Id): StatResponse',
      { responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
    [
      'PATCH {id} update_stat = stats.update(user, id: Id, body: UpdateStatRequest): StatResponse',
      { responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
    [
      'DELETE {id} delete_stat = stats.remove(user, id: Id)',
      { status: [204, 'Deleted'], responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
  ],
});
