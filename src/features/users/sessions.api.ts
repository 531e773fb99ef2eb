import { controller } from '../controller-spec.js';

export default controller({
  name: 'SessionsController',
  route: 'api/v3/sessions',
  tag: 'Sessions',
  security: ['system:Edit'],
  responses: {
    400: 'Invalid input',
    403: 'System Edit permission required, even to read: session ids are ZoneMinder web credentials',
  },
  imports: {
    './sessions-service.js': ['SessionsService', 'CreateSessionRequest', 'SessionResponse', 'UpdateSessionRequest'],
  },
  services: { sessions: 'SessionsService' },
  pages: { PaginatedSessionsResponse: 'SessionResponse' },
  operations: [
    [
      'GET / list_sessions = sessions.list(page?: PageNumber, page_size?: PageSize): PaginatedSessionsResponse',
      { doc: ['Lists ZoneMinder web sessions.'] },
    ],
    [
      'POST / create_session = sessions.create(body: CreateSessionRequest): SessionResponse',
      { status: [201, 'Created'], responses: { 409: 'A session with this id exists' } },
    ],
    [
      'GET {id} get_session = sessions.get(id: string): SessionResponse',
      {
        doc: ['@param id PHP session id.', '@pattern id ^[A-Za-z0-9,-]{1,32}$', '@maxLength id 32'],
        responses: { 404: 'No such session' },
      },
    ],
    [
      'PATCH {id} update_session = sessions.update(id: string, body: UpdateSessionRequest): SessionResponse',
      {
        doc: ['@param id PHP session id.', '@pattern id ^[A-Za-z0-9,-]{1,32}$', '@maxLength id 32'],
        responses: { 404: 'No such session' },
      },
    ],
    [
      'DELETE {id} delete_session = sessions.remove(id: string)',
      {
        doc: ['@param id PHP session id.', '@pattern id ^[A-Za-z0-9,-]{1,32}$', '@maxLength id 32'],
        status: [204, 'Deleted'],
        responses: { 404: 'No such session' },
      },
    ],
  ],
});
