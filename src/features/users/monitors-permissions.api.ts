import { controller } from '../controller-spec.js';

export default controller({
  name: 'MonitorsPermissionsController',
  comment: ['Permission management is System-gated on purpose: a Monitors-Edit user cannot raise their own rights.'],
  route: 'api/v3/monitors-permissions',
  tag: 'Monitors Permissions',
  security: ['system'],
  responses: { 400: 'Invalid input: unknown user or monitor, bad permission', 403: 'System permission required' },
  imports: {
    './permissions-service.js': [
      'PermissionsService',
      'CreateMonitorPermissionRequest',
      'MonitorPermissionResponse',
      'UpdateMonitorPermissionRequest',
    ],
  },
  services: { permissions: 'PermissionsService' },
  pages: { PaginatedMonitorPermissionsResponse: 'MonitorPermissionResponse' },
  operations: [
    [
      'GET / list_monitors_permissions = permissions.listMonitor(page?: PageNumber, page_size?: PageSize): PaginatedMonitorPermissionsResponse',
      { doc: ['Lists monitor permission rows.'] },
    ],
    [
      'POST / create_monitor_permission = permissions.createMonitor(body: CreateMonitorPermissionRequest): MonitorPermissionResponse',
      { status: [201, 'Created'], responses: { 409: 'The user already has a row for this monitor' } },
    ],
    'GET {id} get_monitor_permission = permissions.getMonitor(id: Id): MonitorPermissionResponse',
    'PATCH {id} update_monitor_permission = permissions.updateMonitor(id: Id, body: UpdateMonitorPermissionRequest): MonitorPermissionResponse',
    ['DELETE {id} delete_monitor_permission = permissions.removeMonitor(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
