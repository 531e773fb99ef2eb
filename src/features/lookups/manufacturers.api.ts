import { controller } from '../controller-spec.js';

export default controller({
  name: 'ManufacturersController',
  route: 'api/v3/manufacturers',
  tag: 'Manufacturers',
  security: ['devices'],
  responses: { 400: 'Invalid input', 403: 'Devices permission required' },
  imports: {
    './manufacturers-service.js': [
      'ManufacturersService',
      'CreateManufacturerRequest',
      'ManufacturerResponse',
      'UpdateManufacturerRequest',
    ],
  },
  services: { manufacturers: 'ManufacturersService' },
  pages: { PaginatedManufacturersResponse: 'ManufacturerResponse' },
  operations: [
    [
      'GET / list_manufacturers = manufacturers.list(page?: PageNumber, page_size?: PageSize): PaginatedManufacturersResponse',
      { doc: ['Lists camera manufacturers.'] },
    ],
    [
      'POST / create_manufacturer = manufacturers.create(body: CreateManufacturerRequest): ManufacturerResponse',
      { status: [201, 'Created'], responses: { 409: 'A manufacturer with this name exists' } },
    ],
    'GET {id} get_manufacturer = manufacturers.get(id: Id): ManufacturerResponse',
    [
      'PATCH {id} update_manufacturer = manufacturers.update(id: Id, body: UpdateManufacturerRequest): ManufacturerResponse',
      { responses: { 409: 'A manufacturer with this name exists' } },
    ],
    [
      'DELETE {id} delete_manufacturer = manufacturers.remove(id: Id)',
      { status: [204, 'Deleted'], responses: { 409: 'Models or monitors still name this manufacturer' } },
    ],
  ],
});
