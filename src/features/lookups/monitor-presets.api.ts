import { controller } from '../controller-spec.js';

export default controller({
  name: 'MonitorPresetsController',
  route: 'api/v3/monitor_presets',
  tag: 'Monitor Presets',
  security: ['monitors'],
  responses: { 400: 'Invalid input, or an unknown model_id', 403: 'Monitors permission required' },
  imports: {
    './monitor-presets-service.js': [
      'MonitorPresetsService',
      'CreateMonitorPresetRequest',
      'MonitorPresetResponse',
      'UpdateMonitorPresetRequest',
    ],
  },
  services: { presets: 'MonitorPresetsService' },
  pages: { PaginatedMonitorPresetsResponse: 'MonitorPresetResponse' },
  operations: [
    [
      'GET / list_monitor_presets = presets.list(page?: PageNumber, page_size?: PageSize): PaginatedMonitorPresetsResponse',
      { doc: ['Lists monitor presets (camera templates).'] },
    ],
    [
      'POST / create_monitor_preset = presets.create(body: CreateMonitorPresetRequest): MonitorPresetResponse',
      { status: [201, 'Created'] },
    ],
    'GET {id} get_monitor_preset = presets.get(id: Id): MonitorPresetResponse',
    'PATCH {id} update_monitor_preset = presets.update(id: Id, body: UpdateMonitorPresetRequest): MonitorPresetResponse',
    ['DELETE {id} delete_monitor_preset = presets.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
