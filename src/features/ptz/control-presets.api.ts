import { controller } from '../controller-spec.js';

export default controller({
  name: 'ControlPresetsController',
  route: 'api/v3/control_presets',
  tag: 'Control Presets',
  security: ['control'],
  responses: {
    400: 'Invalid input, or an unknown monitor_id',
    403: 'Control permission required, or the monitor is not editable',
  },
  imports: {
    './control-presets-service.js': [
      'ControlPresetsService',
      'ControlPresetResponse',
      'CreateControlPresetRequest',
      'UpdateControlPresetRequest',
    ],
  },
  services: { presets: 'ControlPresetsService' },
  pages: { PaginatedControlPresetsResponse: 'ControlPresetResponse' },
  operations: [
    [
      'GET / list_control_presets = presets.list(user, monitor_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedControlPresetsResponse',
      {
        doc: [
          'Lists PTZ presets of the monitors the caller may see.',
          '@param monitor_id Only presets of this monitor.',
        ],
      },
    ],
    [
      'POST / create_control_preset = presets.create(user, body: CreateControlPresetRequest): ControlPresetResponse',
      { status: [201, 'Created'], responses: { 409: 'The monitor already has this preset' } },
    ],
    [
      'GET {monitor_id}/{preset} get_control_preset = presets.get(user, monitor_id: Id, preset: Id): ControlPresetResponse',
      { responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
    [
      'PATCH {monitor_id}/{preset} update_control_preset = presets.update(user, monitor_id: Id, preset: Id, body: UpdateControlPresetRequest): ControlPresetResponse',
      { responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
    [
      'DELETE {monitor_id}/{preset} delete_control_preset = presets.remove(user, monitor_id: Id, preset: Id)',
      { status: [204, 'Deleted'], responses: { 404: 'Not found, or the monitor is hidden' } },
    ],
  ],
});
