import { controller } from '../controller-spec.js';

export default controller({
  name: 'SnapshotsController',
  route: 'api/v3/snapshots',
  tag: 'Snapshots',
  security: ['snapshots'],
  responses: { 400: 'Invalid input', 403: 'Snapshots permission required' },
  imports: {
    './snapshots-service.js': [
      'SnapshotsService',
      'CreateSnapshotRequest',
      'SnapshotResponse',
      'UpdateSnapshotRequest',
    ],
  },
  services: { snapshots: 'SnapshotsService' },
  pages: { PaginatedSnapshotsResponse: 'SnapshotResponse' },
  operations: [
    [
      'GET / list_snapshots = snapshots.list(page?: number, page_size?: PageSize): PaginatedSnapshotsResponse',
      {
        doc: [
          'Lists snapshots in Id order.',
          '@param page 1-based page number (default 1).',
          '@isLong page',
          '@minimum page 0',
        ],
      },
    ],
    [
      'POST / create_snapshot = snapshots.create(user, body: CreateSnapshotRequest): SnapshotResponse',
      {
        doc: ['Creates a snapshot; `created_by` is always the caller, `created_on` defaults to now.'],
        status: [201, 'Created'],
      },
    ],
    [
      'GET {id} get_snapshot = snapshots.get(id: number): SnapshotResponse',
      { doc: ['@isInt id must be an integer >= 0', '@minimum id 0'] },
    ],
    [
      'PATCH {id} update_snapshot = snapshots.update(id: number, body: UpdateSnapshotRequest): SnapshotResponse',
      { doc: ['Partial update; `created_by` never changes.', '@isInt id must be an integer >= 0', '@minimum id 0'] },
    ],
    [
      'DELETE {id} delete_snapshot = snapshots.remove(id: number)',
      {
        doc: [
          'Deletes the snapshot and its event rows (the events themselves stay).',
          '@isInt id must be an integer >= 0',
          '@minimum id 0',
        ],
        status: [204, 'Deleted'],
      },
    ],
  ],
});
