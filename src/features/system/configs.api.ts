import { controller } from '../controller-spec.js';

export default controller({
  name: 'ConfigsController',
  route: 'api/v3/configs',
  tag: 'Config',
  security: ['system'],
  responses: { 400: 'Invalid input', 403: 'System permission required', 500: 'Database error' },
  imports: {
    './configs-service.js': ['ConfigsService', 'CategoryCountResponse', 'ConfigResponse', 'UpdateConfigRequest'],
  },
  services: { configs: 'ConfigsService' },
  pages: { PaginatedConfigsResponse: 'ConfigResponse' },
  operations: [
    [
      'GET / list_configs = configs.list({ page?: PageNumber, page_size?: PageSize, category?: string, search?: string }): PaginatedConfigsResponse',
      {
        doc: [
          'Lists configuration entries; private values are masked.',
          '@param category Only entries of this category (exact match).',
          '@param search Only entries whose name contains this text.',
        ],
      },
    ],
    [
      'GET categories list_categories = configs.categories(): CategoryCountResponse[]',
      { doc: ['Every category with its number of entries: a bare array, not paginated.'] },
    ],
    [
      'GET {name} get_config = configs.get(name: string): ConfigResponse',
      {
        doc: ['One entry by name; an unknown name is 404 CONFIG_NOT_FOUND_ERROR.'],
        responses: { 404: 'No entry with this name' },
      },
    ],
    [
      'PUT {name} update_config = configs.update(name: string, body: UpdateConfigRequest): ConfigResponse',
      {
        doc: ["Sets an entry's value, checked against its type. A read-only entry is 403."],
        responses: { 403: 'System Edit required, or the entry is read-only', 404: 'No entry with this name' },
      },
    ],
  ],
});
