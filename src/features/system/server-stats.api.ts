import { controller } from '../controller-spec.js';

export default controller({
  name: 'ServerStatsController',
  route: 'api/v3/server-stats',
  tag: 'Server Stats',
  security: ['system'],
  responses: { 400: 'Invalid input, or an unknown server_id', 403: 'System permission required' },
  imports: { './server-stats-service.js': ['ServerStatsService', 'CreateServerStatRequest', 'ServerStatResponse'] },
  services: { stats: 'ServerStatsService' },
  pages: { PaginatedServerStatsResponse: 'ServerStatResponse' },
  operations: [
    [
      'GET / list_server_stats = stats.list(page?: PageNumber, page_size?: PageSize): PaginatedServerStatsResponse',
      { doc: ['Lists host load samples, oldest first.'] },
    ],
    [
      'POST / create_server_stat = stats.create(body: CreateServerStatRequest): ServerStatResponse',
      { status: [201, 'Created'] },
    ],
    'GET {id} get_server_stat = stats.get(id: Id): ServerStatResponse',
    ['DELETE {id} delete_server_stat = stats.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
