import { controller } from '../controller-spec.js';

export default controller({
  name: 'StatesController',
  route: 'api/v3/states',
  tag: 'States',
  security: ['system'],
  responses: { 400: 'Invalid input, or a definition ZoneMinder could not apply', 403: 'System permission required' },
  imports: { './states-service.js': ['StatesService', 'CreateStateRequest', 'StateResponse', 'UpdateStateRequest'] },
  services: { states: 'StatesService' },
  pages: { PaginatedStatesResponse: 'StateResponse' },
  operations: [
    [
      'GET / list_states = states.list(page?: PageNumber, page_size?: PageSize): PaginatedStatesResponse',
      { doc: ['Lists run states.'] },
    ],
    [
      'POST / create_state = states.create(body: CreateStateRequest): StateResponse',
      { status: [201, 'Created'], responses: { 409: 'A state with this name exists' } },
    ],
    'GET {id} get_state = states.get(id: Id): StateResponse',
    // Not the reference's `update_state`, which PATCH /monitors/{id}/state uses as well (operationIds are unique).
    [
      'PATCH {id} update_state_preset = states.update(id: Id, body: UpdateStateRequest): StateResponse',
      { responses: { 409: 'A state with this name exists' } },
    ],
    ['DELETE {id} delete_state = states.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
