import { controller } from '../controller-spec.js';

export default controller({
  name: 'RoleGroupsPermissionsController',
  comment: ["A role's per-group rules (Role_Groups_Permissions). System-gated like all permission CRUD."],
  route: 'api/v3/role-groups-permissions',
  tag: 'Role Groups Permissions',
  security: ['system'],
  responses: { 400: 'Invalid input: unknown role or group, bad permission', 403: 'System permission required' },
  imports: {
    './role-permissions-service.js': [
      'RolePermissionsService',
      'CreateRoleGroupPermissionRequest',
      'RoleGroupPermissionResponse',
      'UpdateRoleGroupPermissionRequest',
    ],
  },
  services: { service: 'RolePermissionsService' },
  pages: { PaginatedRoleGroupPermissionsResponse: 'RoleGroupPermissionResponse' },
  operations: [
    [
      'GET / list_role_groups_permissions = service.listGroup(role_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedRoleGroupPermissionsResponse',
      { doc: ['Lists role group permission rows.', '@param role_id Only rows of this role.'] },
    ],
    [
      'POST / create_role_group_permission = service.createGroup(body: CreateRoleGroupPermissionRequest): RoleGroupPermissionResponse',
      { status: [201, 'Created'], responses: { 409: 'The role already has a row for this group' } },
    ],
    'GET {id} get_role_group_permission = service.getGroup(id: Id): RoleGroupPermissionResponse',
    [
      'PATCH {id} update_role_group_permission = service.updateGroup(id: Id, body: UpdateRoleGroupPermissionRequest): RoleGroupPermissionResponse',
      { responses: { 409: 'The role already has a row for this group' } },
    ],
    ['DELETE {id} delete_role_group_permission = service.removeGroup(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
