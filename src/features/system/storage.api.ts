import { controller } from '../controller-spec.js';

export default controller({
  name: 'StorageController',
  route: 'api/v3/storage',
  tag: 'Storage',
  security: ['system'],
  responses: { 400: 'Invalid input', 403: 'System permission required' },
  imports: {
    './storage-service.js': ['StorageService', 'CreateStorageRequest', 'StorageResponse', 'UpdateStorageRequest'],
  },
  services: { storage: 'StorageService' },
  pages: { PaginatedStorageResponse: 'StorageResponse' },
  operations: [
    [
      'GET / list_storage = storage.list(page?: PageNumber, page_size?: PageSize): PaginatedStorageResponse',
      { doc: ['Lists storage areas.'] },
    ],
    [
      'POST / create_storage = storage.create(body: CreateStorageRequest): StorageResponse',
      { doc: ['Creates a storage area; `do_delete` defaults to 1.'], status: [201, 'Created'] },
    ],
    'GET {id} get_storage = storage.get(id: Id): StorageResponse',
    'PATCH {id} update_storage = storage.update(id: Id, body: UpdateStorageRequest): StorageResponse',
    [
      'DELETE {id} delete_storage = storage.remove(id: Id)',
      {
        doc: ['Deletes a storage area no monitor or event uses.'],
        status: [204, 'Deleted'],
        responses: { 409: 'Monitors or events still use this storage' },
      },
    ],
  ],
});
