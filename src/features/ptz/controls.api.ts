import { controller } from '../controller-spec.js';

export default controller({
  name: 'ControlsController',
  comment: ['Camera control (PTZ) profiles; gated on Control as PTZ is (the spec leaves it open).'],
  route: 'api/v3/controls',
  tag: 'Controls',
  security: ['control'],
  responses: { 400: 'Invalid input', 403: 'Control permission required' },
  imports: {
    './controls-service.js': ['ControlsService', 'ControlResponse', 'CreateControlRequest', 'UpdateControlRequest'],
  },
  services: { controls: 'ControlsService' },
  pages: { PaginatedControlsResponse: 'ControlResponse' },
  operations: [
    [
      'GET / list_controls = controls.list(page?: PageNumber, page_size?: PageSize): PaginatedControlsResponse',
      { doc: ['Lists control profiles.'] },
    ],
    [
      'POST / create_control = controls.create(body: CreateControlRequest): ControlResponse',
      { doc: ['Creates a profile; flags and counts left out default to 0, ranges to null.'], status: [201, 'Created'] },
    ],
    'GET {id} get_control = controls.get(id: Id): ControlResponse',
    'PATCH {id} update_control = controls.update(id: Id, body: UpdateControlRequest): ControlResponse',
    [
      'DELETE {id} delete_control = controls.remove(id: Id)',
      {
        doc: ['Deletes a profile that no monitor uses.'],
        status: [204, 'Deleted'],
        responses: { 409: 'Monitors still use this profile' },
      },
    ],
  ],
});
