import { controller } from '../controller-spec.js';

export default controller({
  name: 'AiDatasetsController',
  route: 'api/v3/ai/datasets',
  tag: 'AI',
  security: ['system'],
  responses: { 400: 'Invalid input', 403: 'System permission required' },
  imports: {
    './ai-datasets-service.js': [
      'AiDatasetsService',
      'AiDatasetResponse',
      'CreateAiDatasetRequest',
      'UpdateAiDatasetRequest',
    ],
  },
  services: { datasets: 'AiDatasetsService' },
  pages: { PaginatedAiDatasetsResponse: 'AiDatasetResponse' },
  operations: [
    [
      'GET / list_datasets = datasets.list(page?: PageNumber, page_size?: PageSize): PaginatedAiDatasetsResponse',
      { doc: ['Lists AI datasets. `page`/`page_size` are accepted as on every other list.'] },
    ],
    [
      'POST / create_dataset = datasets.create(body: CreateAiDatasetRequest): AiDatasetResponse',
      { status: [201, 'Created'], responses: { 409: 'A dataset with this name exists' } },
    ],
    'GET {id} get_dataset = datasets.get(id: Id): AiDatasetResponse',
    [
      'PATCH {id} update_dataset = datasets.update(id: Id, body: UpdateAiDatasetRequest): AiDatasetResponse',
      { responses: { 409: 'A dataset with this name exists' } },
    ],
    [
      'DELETE {id} delete_dataset = datasets.remove(id: Id)',
      {
        doc: ['Deletes the dataset and its object classes; models that used it keep no dataset.'],
        status: [204, 'Deleted'],
      },
    ],
  ],
});
