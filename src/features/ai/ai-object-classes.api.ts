import { controller } from '../controller-spec.js';

export default controller({
  name: 'AiObjectClassesController',
  route: 'api/v3/ai/object-classes',
  tag: 'AI',
  security: ['system'],
  responses: { 400: 'Invalid input, or an unknown dataset_id', 403: 'System permission required' },
  imports: {
    './ai-object-classes-service.js': [
      'AiObjectClassesService',
      'AiObjectClassResponse',
      'CreateAiObjectClassRequest',
      'UpdateAiObjectClassRequest',
    ],
  },
  services: { classes: 'AiObjectClassesService' },
  pages: { PaginatedAiObjectClassesResponse: 'AiObjectClassResponse' },
  operations: [
    [
      'GET / list_classes = classes.list(dataset_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedAiObjectClassesResponse',
      {
        doc: [
          'Lists object classes, optionally only those of one dataset.',
          '@param dataset_id Only classes of this dataset.',
        ],
      },
    ],
    [
      'POST / create_class = classes.create(body: CreateAiObjectClassRequest): AiObjectClassResponse',
      {
        doc: ['Creates a class; a `dataset_id` naming no dataset is a 400.'],
        status: [201, 'Created'],
        responses: { 409: 'The dataset already has a class with this name' },
      },
    ],
    'GET {id} get_class = classes.get(id: Id): AiObjectClassResponse',
    [
      'PATCH {id} update_class = classes.update(id: Id, body: UpdateAiObjectClassRequest): AiObjectClassResponse',
      { responses: { 409: 'The dataset already has a class with this name' } },
    ],
    ['DELETE {id} delete_class = classes.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
