import { controller } from '../controller-spec.js';

export default controller({
  name: 'GroupsMonitorsController',
  route: 'api/v3/groups-monitors',
  tag: 'Groups Monitors',
  security: ['groups'],
  responses: {
    400: 'Invalid input: unknown group or monitor',
    403: 'Groups permission required, or the group is view-only for this account',
  },
  imports: {
    './groups-monitors-service.js': ['GroupsMonitorsService', 'CreateGroupMonitorRequest', 'GroupMonitorResponse'],
  },
  services: { memberships: 'GroupsMonitorsService' },
  pages: { PaginatedGroupMonitorsResponse: 'GroupMonitorResponse' },
  operations: [
    [
      'GET / list_groups_monitors = memberships.list(user, page?: PageNumber, page_size?: PageSize): PaginatedGroupMonitorsResponse',
      { doc: ['Group memberships whose group and monitor the caller may both see.'] },
    ],
    [
      'POST / create_group_monitor = memberships.create(user, body: CreateGroupMonitorRequest): GroupMonitorResponse',
      { status: [201, 'Created'], responses: { 409: 'The monitor is already in the group' } },
    ],
    [
      'GET {id} get_group_monitor = memberships.get(user, id: Id): GroupMonitorResponse',
      { responses: { 404: 'Not found or hidden by the row-level ACL' } },
    ],
    [
      'DELETE {id} delete_group_monitor = memberships.remove(user, id: Id)',
      { status: [204, 'Deleted'], responses: { 404: 'Not found or hidden by the row-level ACL' } },
    ],
  ],
});
