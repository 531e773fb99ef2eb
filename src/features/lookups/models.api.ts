import { controller } from '../controller-spec.js';

export default controller({
  name: 'ModelsController',
  route: 'api/v3/models',
  tag: 'Models',
  security: ['devices'],
  responses: { 400: 'Invalid input, or an unknown manufacturer_id', 403: 'Devices permission required' },
  imports: { './models-service.js': ['ModelsService', 'CreateModelRequest', 'ModelResponse', 'UpdateModelRequest'] },
  services: { models: 'ModelsService' },
  pages: { PaginatedModelsResponse: 'ModelResponse' },
  operations: [
    [
      'GET / list_models = models.list(manufacturer_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedModelsResponse',
      { doc: ['Lists camera models.', '@param manufacturer_id Only models of this manufacturer.'] },
    ],
    [
      'POST / create_model = models.create(body: CreateModelRequest): ModelResponse',
      { status: [201, 'Created'], responses: { 409: 'The manufacturer already has a model with this name' } },
    ],
    'GET {id} get_model = models.get(id: Id): ModelResponse',
    [
      'PATCH {id} update_model = models.update(id: Id, body: UpdateModelRequest): ModelResponse',
      { responses: { 409: 'The manufacturer already has a model with this name' } },
    ],
    [
      'DELETE {id} delete_model = models.remove(id: Id)',
      { status: [204, 'Deleted'], responses: { 409: 'Monitors or monitor presets still use this model' } },
    ],
  ],
});
