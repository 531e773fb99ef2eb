import { controller } from '../controller-spec.js';

export default controller({
  name: 'SnapshotsEventsController',
  route: 'api/v3/snapshots-events',
  tag: 'Snapshots Events',
  security: ['snapshots'],
  responses: { 400: 'Invalid input', 403: 'Snapshots permission required' },
  imports: {
    './snapshots-service.js': ['SnapshotEventsService', 'CreateSnapshotEventRequest', 'SnapshotEventResponse'],
  },
  services: { snapshotEvents: 'SnapshotEventsService' },
  pages: { PaginatedSnapshotEventsResponse: 'SnapshotEventResponse' },
  operations: [
    [
      'GET / list_snapshot_events = snapshotEvents.list(user, { page?: number, page_size?: PageSize, snapshot_id?: number }): PaginatedSnapshotEventsResponse',
      {
        doc: [
          'Lists the events of snapshots, only events of monitors the caller may see, in Id order.',
          '@param snapshot_id Only the events of this snapshot.',
          '@param page 1-based page number (default 1).',
          '@isInt snapshot_id must be an integer >= 0',
          '@minimum snapshot_id 0',
          '@isLong page',
          '@minimum page 0',
        ],
      },
    ],
    [
      'POST / create_snapshot_event = snapshotEvents.create(user, body: CreateSnapshotEventRequest): SnapshotEventResponse',
      {
        doc: ['Adds an event to a snapshot; both must exist and the event be visible (400 otherwise).'],
        status: [201, 'Created'],
      },
    ],
    [
      'GET {id} get_snapshot_event = snapshotEvents.get(user, id: number): SnapshotEventResponse',
      {
        doc: ['@isInt id must be an integer >= 0', '@minimum id 0'],
        responses: { 404: 'Not found, or the event is hidden' },
      },
    ],
    [
      'DELETE {id} delete_snapshot_event = snapshotEvents.remove(user, id: number)',
      {
        doc: ['@isInt id must be an integer >= 0', '@minimum id 0'],
        status: [204, 'Deleted'],
        responses: { 404: 'Not found, or the event is hidden' },
      },
    ],
  ],
});
