import { controller } from '../controller-spec.js';

export default controller({
  name: 'ZonePresetsController',
  route: 'api/v3/zone-presets',
  tag: 'Zones',
  security: ['monitors'],
  responses: { 400: 'Invalid input', 403: 'Monitors permission required' },
  imports: {
    './zone-presets-service.js': [
      'ZonePresetsService',
      'CreateZonePresetRequest',
      'UpdateZonePresetRequest',
      'ZonePresetResponse',
    ],
  },
  services: { presets: 'ZonePresetsService' },
  pages: { PaginatedZonePresetsResponse: 'ZonePresetResponse' },
  operations: [
    [
      'GET / list_zone_presets = presets.list(page?: PageNumber, page_size?: PageSize): PaginatedZonePresetsResponse',
      { doc: ['Lists zone presets.'] },
    ],
    [
      'POST / create_zone_preset = presets.create(body: CreateZonePresetRequest): ZonePresetResponse',
      { status: [201, 'Created'] },
    ],
    'GET {id} get_zone_preset = presets.get(id: Id): ZonePresetResponse',
    'PATCH {id} update_zone_preset = presets.update(id: Id, body: UpdateZonePresetRequest): ZonePresetResponse',
    ['DELETE {id} delete_zone_preset = presets.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
