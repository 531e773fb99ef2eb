import { controller } from '../controller-spec.js';

export default controller({
  name: 'ServersController',
  route: 'api/v3/servers',
  tag: 'Servers',
  security: ['system'],
  responses: { 400: 'Invalid input', 403: 'System permission required' },
  imports: {
    './servers-service.js': ['ServersService', 'CreateServerRequest', 'ServerResponse', 'UpdateServerRequest'],
  },
  services: { servers: 'ServersService' },
  pages: { PaginatedServersResponse: 'ServerResponse' },
  operations: [
    [
      'GET / list_servers = servers.list(page?: PageNumber, page_size?: PageSize): PaginatedServersResponse',
      { doc: ['Lists servers.'] },
    ],
    [
      'POST / create_server = servers.create(body: CreateServerRequest): ServerResponse',
      { doc: ['Creates a server with every field of ServerResponse settable.'], status: [201, 'Created'] },
    ],
    'GET {id} get_server = servers.get(id: Id): ServerResponse',
    'PATCH {id} update_server = servers.update(id: Id, body: UpdateServerRequest): ServerResponse',
    [
      'DELETE {id} delete_server = servers.remove(id: Id)',
      {
        doc: ['Deletes a server no monitor or storage area is assigned to.'],
        status: [204, 'Deleted'],
        responses: { 409: 'Monitors or storage areas still use this server' },
      },
    ],
  ],
});
