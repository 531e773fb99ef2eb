import { controller } from '../controller-spec.js';

export default controller({
  name: 'MapsController',
  comment: ["Maps (ZoneMinder's Maps table). Site-wide configuration: System-gated."],
  route: 'api/v3/maps',
  tag: 'Maps',
  security: ['system'],
  responses: {
    400: 'Invalid input: bad coordinates, unknown parent, a parent cycle',
    403: 'System permission required',
  },
  imports: { './maps-service.js': ['MapsService', 'CreateMapRequest', 'MapResponse', 'UpdateMapRequest'] },
  services: { service: 'MapsService' },
  pages: { PaginatedMapsResponse: 'MapResponse' },
  operations: [
    [
      'GET / list_maps = service.list(parent_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedMapsResponse',
      { doc: ['Lists maps.', '@param parent_id Only the child maps of this map.'] },
    ],
    ['POST / create_map = service.create(body: CreateMapRequest): MapResponse', { status: [201, 'Created'] }],
    'GET {id} get_map = service.get(id: Id): MapResponse',
    'PATCH {id} update_map = service.update(id: Id, body: UpdateMapRequest): MapResponse',
    ['DELETE {id} delete_map = service.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
