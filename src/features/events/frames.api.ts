import { controller } from '../controller-spec.js';

export default controller({
  name: 'FramesController',
  route: 'api/v3/frames',
  tag: 'Frames',
  security: ['events'],
  responses: { 400: 'Invalid input', 403: 'Events permission required' },
  imports: {
    './frames-service.js': [
      'FramesService',
      'CreateFrameRequest',
      'FrameResponse',
      'PaginatedFramesResponse',
      'UpdateFrameRequest',
    ],
  },
  services: { frames: 'FramesService' },
  operations: [
    [
      'GET / list_frames = frames.list(user, event_id?: BigId, page?: PageNumber, page_size?: PageSize): PaginatedFramesResponse',
      {
        doc: [
          'Lists frames in Id order; with `event_id`, the frames of that event (none when the event',
          'is missing or hidden).',
          '@param event_id Only frames of this event.',
        ],
      },
    ],
    [
      'POST / create_frame = frames.create(user, body: CreateFrameRequest): FrameResponse',
      { status: [201, 'Created'] },
    ],
    [
      'GET {id} get_frame = frames.get(user, id: BigId): FrameResponse',
      { responses: { 404: 'No such frame, or its event is hidden' } },
    ],
    [
      'PATCH {id} update_frame = frames.update(user, id: BigId, body: UpdateFrameRequest): FrameResponse',
      { responses: { 404: 'No such frame, or its event is hidden' } },
    ],
    [
      'DELETE {id} delete_frame = frames.remove(user, id: BigId)',
      { status: [204, 'Deleted'], responses: { 404: 'No such frame, or its event is hidden' } },
    ],
  ],
});
