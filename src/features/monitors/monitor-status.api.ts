import { controller } from '../controller-spec.js';

export default controller({
  name: 'MonitorStatusController',
  route: 'api/v3/monitor-status',
  tag: 'Monitor Status',
  security: ['monitors'],
  responses: {
    400: 'Invalid input',
    403: 'Monitors permission required, or the monitor is view-only for this account',
  },
  imports: {
    './monitor-status-service.js': ['MonitorStatusService', 'MonitorStatusResponse', 'UpdateMonitorStatusRequest'],
  },
  services: { statuses: 'MonitorStatusService' },
  pages: { PaginatedMonitorStatusesResponse: 'MonitorStatusResponse' },
  operations: [
    [
      'GET / list_monitor_statuses = statuses.list(user, page?: PageNumber, page_size?: PageSize): PaginatedMonitorStatusesResponse [polled]',
      { doc: ['Status rows of the monitors the caller may see.'] },
    ],
    [
      'GET {monitor_id} get_monitor_status = statuses.get(user, monitor_id: Id): MonitorStatusResponse',
      { responses: { 404: 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR), or no status recorded' } },
    ],
    [
      'PATCH {monitor_id} update_monitor_status = statuses.update(user, monitor_id: Id, body: UpdateMonitorStatusRequest): MonitorStatusResponse',
      {
        doc: ['Records a heartbeat for the monitor (insert or update).'],
        responses: { 404: 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)' },
      },
    ],
  ],
});
