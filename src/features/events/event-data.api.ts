import { controller } from '../controller-spec.js';

export default controller({
  name: 'EventDataController',
  route: 'api/v3/event-data',
  tag: 'Event Data',
  security: ['events'],
  responses: { 400: 'Invalid input', 403: 'Events permission required' },
  imports: {
    './event-data-service.js': [
      'EventDataService',
      'CreateEventDataRequest',
      'EventDataResponse',
      'PaginatedEventDataResponse',
      'UpdateEventDataRequest',
    ],
  },
  services: { eventData: 'EventDataService' },
  operations: [
    [
      'GET / list_event_data = eventData.list(user, event_id?: BigId, page?: PageNumber, page_size?: PageSize): PaginatedEventDataResponse',
      {
        doc: [
          'Lists event data rows in Id order; with `event_id`, the rows of that event (none when the',
          'event is missing or hidden). Gated by the Events feature.',
          '@param event_id Only rows of this event.',
        ],
      },
    ],
    [
      'POST / create_event_data = eventData.create(user, body: CreateEventDataRequest): EventDataResponse',
      { status: [201, 'Created'] },
    ],
    [
      'GET {id} get_event_data = eventData.get(user, id: BigId): EventDataResponse',
      { responses: { 404: 'No such row, or its monitor is hidden' } },
    ],
    [
      'PATCH {id} update_event_data = eventData.update(user, id: BigId, body: UpdateEventDataRequest): EventDataResponse',
      { responses: { 404: 'No such row, or its monitor is hidden' } },
    ],
    [
      'DELETE {id} delete_event_data = eventData.remove(user, id: BigId)',
      { status: [204, 'Deleted'], responses: { 404: 'No such row, or its monitor is hidden' } },
    ],
  ],
});
