import { controller } from '../controller-spec.js';

export default controller({
  name: 'RolesController',
  comment: [
    'User roles (ZoneMinder 1.37.78+ User_Roles). System-gated: a role grants areas to its users, so',
    'managing roles is permission management.',
  ],
  route: 'api/v3/roles',
  tag: 'Roles',
  security: ['system'],
  responses: { 400: 'Invalid input: bad level, name too long', 403: 'System permission required' },
  imports: { './roles-service.js': ['RolesService', 'CreateRoleRequest', 'RoleResponse', 'UpdateRoleRequest'] },
  services: { service: 'RolesService' },
  pages: { PaginatedRolesResponse: 'RoleResponse' },
  operations: [
    [
      'GET / list_roles = service.list(page?: PageNumber, page_size?: PageSize): PaginatedRolesResponse',
      { doc: ['Lists user roles.'] },
    ],
    [
      'POST / create_role = service.create(body: CreateRoleRequest): RoleResponse',
      { status: [201, 'Created'], responses: { 409: 'A role with this name exists' } },
    ],
    'GET {id} get_role = service.get(id: Id): RoleResponse',
    [
      'PATCH {id} update_role = service.update(id: Id, body: UpdateRoleRequest): RoleResponse',
      { responses: { 409: 'A role with this name exists' } },
    ],
    ['DELETE {id} delete_role = service.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
