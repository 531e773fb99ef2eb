import { controller } from '../controller-spec.js';

export default controller({
  name: 'MontageLayoutsController',
  route: 'api/v3/montage_layouts',
  tag: 'Montage Layouts',
  security: ['system'],
  responses: {
    400: 'Invalid input, positions that are not JSON, or an unknown user_id',
    403: 'System permission required',
  },
  imports: {
    './montage-layouts-service.js': [
      'MontageLayoutsService',
      'CreateMontageLayoutRequest',
      'MontageLayoutResponse',
      'UpdateMontageLayoutRequest',
    ],
  },
  services: { layouts: 'MontageLayoutsService' },
  pages: { PaginatedMontageLayoutsResponse: 'MontageLayoutResponse' },
  operations: [
    [
      'GET / list_montage_layouts = layouts.list(page?: PageNumber, page_size?: PageSize): PaginatedMontageLayoutsResponse',
      { doc: ["Lists montage layouts (all users')."] },
    ],
    [
      'POST / create_montage_layout = layouts.create(body: CreateMontageLayoutRequest): MontageLayoutResponse',
      { status: [201, 'Created'] },
    ],
    'GET {id} get_montage_layout = layouts.get(id: Id): MontageLayoutResponse',
    'PATCH {id} update_montage_layout = layouts.update(id: Id, body: UpdateMontageLayoutRequest): MontageLayoutResponse',
    ['DELETE {id} delete_montage_layout = layouts.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
