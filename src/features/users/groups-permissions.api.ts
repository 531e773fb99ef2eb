import { controller } from '../controller-spec.js';

export default controller({
  name: 'GroupsPermissionsController',
  comment: ['Permission management is System-gated on purpose: a Groups-Edit user cannot raise their own rights.'],
  route: 'api/v3/groups-permissions',
  tag: 'Groups Permissions',
  security: ['system'],
  responses: { 400: 'Invalid input: unknown user or group, bad permission', 403: 'System permission required' },
  imports: {
    './permissions-service.js': [
      'PermissionsService',
      'CreateGroupPermissionRequest',
      'GroupPermissionResponse',
      'UpdateGroupPermissionRequest',
    ],
  },
  services: { permissions: 'PermissionsService' },
  pages: { PaginatedGroupPermissionsResponse: 'GroupPermissionResponse' },
  operations: [
    [
      'GET / list_groups_permissions = permissions.listGroup(page?: PageNumber, page_size?: PageSize): PaginatedGroupPermissionsResponse',
      { doc: ['Lists group permission rows.'] },
    ],
    [
      'POST / create_group_permission = permissions.createGroup(body: CreateGroupPermissionRequest): GroupPermissionResponse',
      { status: [201, 'Created'], responses: { 409: 'The user already has a row for this group' } },
    ],
    'GET {id} get_group_permission = permissions.getGroup(id: Id): GroupPermissionResponse',
    'PATCH {id} update_group_permission = permissions.updateGroup(id: Id, body: UpdateGroupPermissionRequest): GroupPermissionResponse',
    ['DELETE {id} delete_group_permission = permissions.removeGroup(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
