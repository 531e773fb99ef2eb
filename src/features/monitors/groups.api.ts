import { controller } from '../controller-spec.js';

export default controller({
  name: 'GroupsController',
  route: 'api/v3/groups',
  tag: 'Groups',
  security: ['groups'],
  responses: {
    400: 'Invalid input: unknown parent, self-parent or cycle',
    403: 'Groups permission required, or the group is view-only for this account',
  },
  imports: { './groups-service.js': ['GroupsService', 'CreateGroupRequest', 'GroupResponse', 'UpdateGroupRequest'] },
  services: { groups: 'GroupsService' },
  pages: { PaginatedGroupsResponse: 'GroupResponse' },
  operations: [
    [
      'GET / list_groups = groups.list(user, page?: PageNumber, page_size?: PageSize): PaginatedGroupsResponse',
      { doc: ['Lists the groups the caller may see.'] },
    ],
    [
      'POST / create_group = groups.create(user, body: CreateGroupRequest): GroupResponse',
      { status: [201, 'Created'] },
    ],
    [
      'GET {id} get_group = groups.get(user, id: Id): GroupResponse',
      { responses: { 404: 'Not found or hidden by the row-level ACL' } },
    ],
    [
      'PUT {id} update_group = groups.update(user, id: Id, body: UpdateGroupRequest): GroupResponse',
      {
        doc: ['Partial update: `parent_id` omitted keeps the parent, null makes the group top level.'],
        responses: { 404: 'Not found or hidden by the row-level ACL' },
      },
    ],
    [
      'DELETE {id} delete_group = groups.remove(user, id: Id)',
      {
        doc: ['Deletes the group with its subgroups and memberships (monitors stay).'],
        status: [204, 'Deleted'],
        responses: { 404: 'Not found or hidden by the row-level ACL' },
      },
    ],
  ],
});
