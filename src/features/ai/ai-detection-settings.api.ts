import { controller } from '../controller-spec.js';

export default controller({
  name: 'AiDetectionSettingsController',
  comment: [
    'Per-monitor AI detection settings (AI_Detection_Settings). Monitor configuration: gated on',
    'Monitors, with the monitor row ACL (see AiDetectionSettingsService).',
  ],
  route: 'api/v3/ai/detection-settings',
  tag: 'AI',
  security: ['monitors'],
  responses: {
    400: 'Invalid input: unknown monitor or object class, bad colour',
    403: 'Monitors permission required, the monitor is view-only, or site-wide rows need an unrestricted account',
  },
  imports: {
    './ai-detection-settings-service.js': [
      'AiDetectionSettingsService',
      'CreateAiDetectionSettingRequest',
      'AiDetectionSettingResponse',
      'UpdateAiDetectionSettingRequest',
    ],
  },
  services: { service: 'AiDetectionSettingsService' },
  pages: { PaginatedAiDetectionSettingsResponse: 'AiDetectionSettingResponse' },
  operations: [
    [
      'GET / list_ai_detection_settings = service.list(user, monitor_id?: Id, object_class_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedAiDetectionSettingsResponse',
      {
        doc: [
          'Lists AI detection settings of the monitors the caller may see, and the site-wide defaults.',
          '@param monitor_id Only rows of this monitor.',
          '@param object_class_id Only rows of this object class.',
        ],
      },
    ],
    [
      'POST / create_ai_detection_setting = service.create(user, body: CreateAiDetectionSettingRequest): AiDetectionSettingResponse',
      { status: [201, 'Created'], responses: { 409: 'The monitor already has a setting for this object class' } },
    ],
    [
      'GET {id} get_ai_detection_setting = service.get(user, id: Id): AiDetectionSettingResponse',
      { responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
    [
      'PATCH {id} update_ai_detection_setting = service.update(user, id: Id, body: UpdateAiDetectionSettingRequest): AiDetectionSettingResponse',
      {
        responses: {
          404: 'Not found, or the monitor is hidden',
          409: 'The monitor already has a setting for this object class',
        },
      },
    ],
    [
      'DELETE {id} delete_ai_detection_setting = service.remove(user, id: Id)',
      { status: [204, 'Deleted'], responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
  ],
});
