import { controller } from '../controller-spec.js';

export default controller({
  name: 'ZonesController',
  comment: ["The reference's operationIds for these routes are the bare verbs (list_by_monitor, create, get, …)."],
  route: 'api/v3',
  tag: 'Zones',
  security: ['monitors'],
  responses: {
    400: 'Invalid input, or coordinates that do not form a polygon',
    403: 'Monitors permission required, or the monitor is view-only for this account',
  },
  imports: { './zones-service.js': ['ZonesService', 'CreateZoneRequest', 'UpdateZoneRequest', 'ZoneResponse'] },
  services: { zones: 'ZonesService' },
  pages: { PaginatedZonesResponse: 'ZoneResponse' },
  operations: [
    [
      'GET monitors/{id}/zones list_by_monitor = zones.listByMonitor(user, id: Id, page?: PageNumber, page_size?: PageSize): PaginatedZonesResponse',
      {
        doc: ['The zones of a monitor.', '@param id Monitor id.'],
        responses: { 404: 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)' },
      },
    ],
    [
      'POST monitors/{id}/zones create = zones.create(user, id: Id, body: CreateZoneRequest): ZoneResponse',
      {
        doc: ['Adds a zone; Area and NumCoords are derived from `coords`.', '@param id Monitor id.'],
        status: [201, 'Created'],
        responses: { 404: 'Monitor not found or hidden (MONITOR_NOT_FOUND_ERROR)' },
      },
    ],
    [
      'GET zones/{id} get = zones.get(user, id: Id): ZoneResponse',
      { responses: { 404: 'Zone not found, or its monitor is hidden' } },
    ],
    [
      'PUT zones/{id} update = zones.update(user, id: Id, body: UpdateZoneRequest): ZoneResponse',
      {
        doc: ['Partial update (only supplied fields change); a new polygon recomputes Area and NumCoords.'],
        responses: { 404: 'Zone not found, or its monitor is hidden' },
      },
    ],
    [
      'DELETE zones/{id} delete = zones.remove(user, id: Id)',
      { status: [204, 'Deleted'], responses: { 404: 'Zone not found, or its monitor is hidden' } },
    ],
  ],
});
