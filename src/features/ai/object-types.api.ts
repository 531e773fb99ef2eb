import { controller } from '../controller-spec.js';

export default controller({
  name: 'ObjectTypesController',
  route: 'api/v3/object-types',
  tag: 'Object Types',
  security: ['events'],
  responses: { 400: 'Invalid input', 403: 'Events permission required' },
  imports: {
    './object-types-service.js': [
      'ObjectTypesService',
      'CreateObjectTypeRequest',
      'ObjectTypeResponse',
      'UpdateObjectTypeRequest',
    ],
  },
  services: { objectTypes: 'ObjectTypesService' },
  pages: { PaginatedObjectTypesResponse: 'ObjectTypeResponse' },
  operations: [
    [
      'GET / list_object_types = objectTypes.list(page?: PageNumber, page_size?: PageSize): PaginatedObjectTypesResponse',
      { doc: ['Lists object types (detection labels).'] },
    ],
    [
      'POST / create_object_type = objectTypes.create(body: CreateObjectTypeRequest): ObjectTypeResponse',
      { status: [201, 'Created'], responses: { 409: 'An object type with this name exists' } },
    ],
    [
      'GET {id} get_object_type = objectTypes.get(id: number): ObjectTypeResponse',
      {
        doc: [
          '@param id Object type id (signed, as in the table).',
          '@isInt id must be an integer',
          '@minimum id -2147483648',
          '@maximum id 2147483647',
        ],
      },
    ],
    [
      'PATCH {id} update_object_type = objectTypes.update(id: number, body: UpdateObjectTypeRequest): ObjectTypeResponse',
      {
        doc: [
          '@param id Object type id (signed, as in the table).',
          '@isInt id must be an integer',
          '@minimum id -2147483648',
          '@maximum id 2147483647',
        ],
        responses: { 409: 'An object type with this name exists' },
      },
    ],
    [
      'DELETE {id} delete_object_type = objectTypes.remove(id: number)',
      {
        doc: [
          '@param id Object type id (signed, as in the table).',
          '@isInt id must be an integer',
          '@minimum id -2147483648',
          '@maximum id 2147483647',
        ],
        status: [204, 'Deleted'],
      },
    ],
  ],
});
