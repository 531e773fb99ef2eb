import { controller } from '../controller-spec.js';

export default controller({
  name: 'AiModelsController',
  route: 'api/v3/ai/models',
  tag: 'AI',
  security: ['system'],
  responses: { 400: 'Invalid input, or an unknown dataset_id', 403: 'System permission required' },
  imports: {
    './ai-models-service.js': ['AiModelsService', 'AiModelResponse', 'CreateAiModelRequest', 'UpdateAiModelRequest'],
  },
  services: { models: 'AiModelsService' },
  pages: { PaginatedAiModelsResponse: 'AiModelResponse' },
  operations: [
    [
      'GET / list_ai_models = models.list(page?: PageNumber, page_size?: PageSize): PaginatedAiModelsResponse',
      { doc: ['Lists AI models with their dataset name resolved.'] },
    ],
    [
      'POST / create_ai_model = models.create(body: CreateAiModelRequest): AiModelResponse',
      {
        doc: ['Creates a model; a `dataset_id` naming no dataset is a 400.'],
        status: [201, 'Created'],
        responses: { 409: 'A model with this name exists' },
      },
    ],
    'GET {id} get_ai_model = models.get(id: Id): AiModelResponse',
    [
      'PATCH {id} update_ai_model = models.update(id: Id, body: UpdateAiModelRequest): AiModelResponse',
      { responses: { 409: 'A model with this name exists' } },
    ],
    ['DELETE {id} delete_ai_model = models.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
