import { controller } from '../controller-spec.js';

export default controller({
  name: 'UsersController',
  comment: ['Accounts and their permission columns: System (granting permissions needs System Edit).'],
  route: 'api/v3/users',
  tag: 'Users',
  security: ['system'],
  responses: { 400: 'Invalid input', 403: 'System permission required' },
  imports: {
    './users-service.js': ['UsersService', 'CreateUserRequest', 'UpdateUserRequest', 'UserResponse'],
  },
  services: { users: 'UsersService' },
  pages: { PaginatedUsersResponse: 'UserResponse' },
  operations: [
    [
      'GET / list_users = users.list(page?: PageNumber, page_size?: PageSize): PaginatedUsersResponse',
      { doc: ['Lists accounts. Passwords are never returned.'] },
    ],
    [
      'POST / create_user = users.create(body: CreateUserRequest): UserResponse',
      {
        doc: ['Creates an account; the password is stored as a bcrypt hash.'],
        status: [201, 'Created'],
        responses: { 409: 'The user name is taken' },
      },
    ],
    'GET {id} get_user = users.get(id: Id): UserResponse',
    [
      'PUT {id} update_user = users.update(id: Id, body: UpdateUserRequest): UserResponse',
      {
        doc: [
          'Partial update. A new password, or disabling the account or its API access, revokes all of',
          "the account's tokens.",
        ],
        responses: { 409: 'The user name is taken' },
      },
    ],
    [
      'DELETE {id} delete_user = users.remove(id: Id)',
      {
        doc: ['Deletes the account (and its preferences); its tokens stop working at once.'],
        status: [204, 'Deleted'],
      },
    ],
  ],
});
