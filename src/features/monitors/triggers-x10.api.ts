import { controller } from '../controller-spec.js';

export default controller({
  name: 'TriggersX10Controller',
  route: 'api/v3/triggers_x10',
  tag: 'TriggersX10',
  security: ['control'],
  responses: {
    400: 'Invalid input, or an unknown monitor_id',
    403: 'Control permission required, or the monitor is view-only for this account',
  },
  imports: {
    './triggers-x10-service.js': [
      'TriggersX10Service',
      'CreateTriggerX10Request',
      'TriggerX10Response',
      'UpdateTriggerX10Request',
    ],
  },
  services: { triggers: 'TriggersX10Service' },
  pages: { PaginatedTriggersX10Response: 'TriggerX10Response' },
  operations: [
    [
      'GET / list_triggers_x10 = triggers.list(user, page?: PageNumber, page_size?: PageSize): PaginatedTriggersX10Response',
      { doc: ['Lists X10 triggers of the monitors the caller may see.'] },
    ],
    [
      'POST / create_trigger_x10 = triggers.create(user, body: CreateTriggerX10Request): TriggerX10Response',
      { status: [201, 'Created'], responses: { 409: 'The monitor already has an X10 trigger' } },
    ],
    [
      'GET {monitor_id} get_trigger_x10 = triggers.get(user, monitor_id: Id): TriggerX10Response',
      { responses: { 404: 'No trigger for this monitor, or the monitor is hidden' } },
    ],
    [
      'PATCH {monitor_id} update_trigger_x10 = triggers.update(user, monitor_id: Id, body: UpdateTriggerX10Request): TriggerX10Response',
      { responses: { 404: 'No trigger for this monitor, or the monitor is hidden' } },
    ],
    [
      'DELETE {monitor_id} delete_trigger_x10 = triggers.remove(user, monitor_id: Id)',
      { status: [204, 'Deleted'], responses: { 404: 'No trigger for this monitor, or the monitor is hidden' } },
    ],
  ],
});
