import { controller } from '../controller-spec.js';

export default controller({
  name: 'RoleMonitorsPermissionsController',
  comment: ["A role's per-monitor rules (Role_Monitors_Permissions). System-gated like all permission CRUD."],
  route: 'api/v3/role-monitors-permissions',
  tag: 'Role Monitors Permissions',
  security: ['system'],
  responses: { 400: 'Invalid input: unknown role or monitor, bad permission', 403: 'System permission required' },
  imports: {
    './role-permissions-service.js': [
      'RolePermissionsService',
      'CreateRoleMonitorPermissionRequest',
      'RoleMonitorPermissionResponse',
      'UpdateRoleMonitorPermissionRequest',
    ],
  },
  services: { service: 'RolePermissionsService' },
  pages: { PaginatedRoleMonitorPermissionsResponse: 'RoleMonitorPermissionResponse' },
  operations: [
    [
      'GET / list_role_monitors_permissions = service.listMonitor(role_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedRoleMonitorPermissionsResponse',
      { doc: ['Lists role monitor permission rows.', '@param role_id Only rows of this role.'] },
    ],
    [
      'POST / create_role_monitor_permission = service.createMonitor(body: CreateRoleMonitorPermissionRequest): RoleMonitorPermissionResponse',
      { status: [201, 'Created'], responses: { 409: 'The role already has a row for this monitor' } },
    ],
    'GET {id} get_role_monitor_permission = service.getMonitor(id: Id): RoleMonitorPermissionResponse',
    [
      'PATCH {id} update_role_monitor_permission = service.updateMonitor(id: Id, body: UpdateRoleMonitorPermissionRequest): RoleMonitorPermissionResponse',
      { responses: { 409: 'The role already has a row for this monitor' } },
    ],
    ['DELETE {id} delete_role_monitor_permission = service.removeMonitor(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
