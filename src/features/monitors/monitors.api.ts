import { controller } from '../controller-spec.js';

export default controller({
  name: 'MonitorsController',
  route: 'api/v3/monitors',
  tag: 'Monitors',
  security: ['monitors'],
  responses: {
    400: 'Invalid input',
    403: 'Monitors permission required, or the monitor is view-only for this account',
    500: 'Database error',
  },
  imports: {
    './monitors-service.js': [
      'MonitorsService',
      'AlarmControlRequest',
      'CreateMonitorRequest',
      'MonitorResponse',
      'UpdateMonitorRequest',
      'UpdateMonitorStateRequest',
    ],
  },
  services: { monitors: 'MonitorsService' },
  pages: { PaginatedMonitorsResponse: 'MonitorResponse' },
  operations: [
    [
      'GET / list_monitors = monitors.list(user, page?: PageNumber, page_size?: PageSize): PaginatedMonitorsResponse [polled]',
      { doc: ['Lists the monitors the caller may see (row-level ACL applied).'] },
    ],
    [
      'POST / create_monitor = monitors.create(user, body: CreateMonitorRequest): MonitorResponse',
      {
        doc: [
          'Creates a monitor; only `name` is required, other columns take their defaults. Needs an unrestricted row scope.',
        ],
        status: [201, 'Created'],
      },
    ],
    [
      'GET {id} get_monitor = monitors.get(user, id: Id): MonitorResponse',
      { responses: { 404: 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)' } },
    ],
    [
      'PATCH {id} update_monitor = monitors.update(user, id: Id, body: UpdateMonitorRequest): MonitorResponse',
      {
        doc: ['Partial update: only supplied fields change.'],
        responses: { 404: 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)' },
      },
    ],
    [
      'DELETE {id} delete_monitor = monitors.remove(user, id: Id)',
      {
        doc: ['Deletes the monitor with its zones, group memberships and permission rows (events stay).'],
        status: [204, 'Deleted'],
        responses: { 404: 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)' },
      },
    ],
    [
      'PATCH {id}/state update_monitor_state = monitors.changeState(user, id: Id, body: UpdateMonitorStateRequest): MonitorResponse',
      {
        doc: [
          "Start, stop or restart the monitor's capture daemon (takeover mode). In passive mode it",
          'answers 503 after validation and the access checks; a daemon that cannot start is a 503 naming why.',
        ],
        responses: {
          404: 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)',
          503: 'Daemon manager not available (passive mode), or the capture daemon could not be started',
        },
      },
    ],
    [
      'PATCH {id}/alarm alarm_control = monitors.alarm(user, id: Id, body: AlarmControlRequest): MonitorResponse',
      {
        doc: [
          'Force (`on`), suppress (`off`), cancel or query (`status`) an alarm through the capture',
          "daemon's shared memory. Answers the monitor; 503 when the monitor is not capturing.",
        ],
        responses: {
          404: 'Not found or hidden by the row-level ACL (MONITOR_NOT_FOUND_ERROR)',
          503: 'The monitor is not capturing (no shared memory, capturing off or a stale heartbeat)',
        },
      },
    ],
  ],
});
