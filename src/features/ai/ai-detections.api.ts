import { controller } from '../controller-spec.js';

export default controller({
  name: 'AiDetectionsController',
  comment: [
    'AI detections (AI_Detections): objects found in event frames. Event data: gated on Events, with',
    "the monitor row ACL through each detection's event.",
  ],
  route: 'api/v3/ai/detections',
  tag: 'AI',
  security: ['events'],
  responses: {
    400: 'Invalid input: unknown event or object class, a frame of another event',
    403: 'Events permission required',
  },
  imports: {
    './ai-detections-service.js': [
      'AiDetectionsService',
      'CreateAiDetectionRequest',
      'AiDetectionResponse',
      'UpdateAiDetectionRequest',
    ],
  },
  services: { service: 'AiDetectionsService' },
  pages: { PaginatedAiDetectionsResponse: 'AiDetectionResponse' },
  operations: [
    [
      'GET / list_ai_detections = service.list(user, event_id?: BigId, object_class_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedAiDetectionsResponse',
      {
        doc: [
          'Lists AI detections of the events the caller may see.',
          '@param event_id Only detections of this event.',
          '@param object_class_id Only detections of this object class.',
        ],
      },
    ],
    [
      'POST / create_ai_detection = service.create(user, body: CreateAiDetectionRequest): AiDetectionResponse',
      { status: [201, 'Created'] },
    ],
    [
      'GET {id} get_ai_detection = service.get(user, id: BigId): AiDetectionResponse',
      { responses: { 404: 'Not found, or the monitor of the event is hidden' } },
    ],
    [
      'PATCH {id} update_ai_detection = service.update(user, id: BigId, body: UpdateAiDetectionRequest): AiDetectionResponse',
      { responses: { 404: 'Not found, or the monitor of the event is hidden' } },
    ],
    [
      'DELETE {id} delete_ai_detection = service.remove(user, id: BigId)',
      { status: [204, 'Deleted'], responses: { 404: 'Not found, or the monitor of the event is hidden' } },
    ],
  ],
});
