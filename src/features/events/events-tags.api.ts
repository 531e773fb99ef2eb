import { controller } from '../controller-spec.js';

export default controller({
  name: 'EventsTagsController',
  route: 'api/v3/events-tags',
  tag: 'Events Tags',
  security: ['events'],
  responses: { 400: 'Invalid input', 403: 'Events permission required' },
  imports: { './events-tags-service.js': ['EventsTagsService', 'CreateEventTagRequest', 'EventTagResponse'] },
  services: { eventsTags: 'EventsTagsService' },
  pages: { PaginatedEventsTagsResponse: 'EventTagResponse' },
  operations: [
    [
      'GET / list_events_tags = eventsTags.list(user, { event_id?: number, tag_id?: number, page?: number, page_size?: PageSize }): PaginatedEventsTagsResponse',
      {
        doc: [
          'Lists tag assignments of events the caller may see, by tag then event.',
          '@param event_id Only assignments of this event.',
          '@param tag_id Only assignments of this tag.',
          '@param page 1-based page number (default 1).',
          '@isLong event_id must be an integer >= 0',
          '@minimum event_id 0',
          '@isLong tag_id must be an integer >= 0',
          '@minimum tag_id 0',
          '@isLong page',
          '@minimum page 0',
        ],
      },
    ],
    [
      'POST / create_event_tag = eventsTags.create(user, body: CreateEventTagRequest): EventTagResponse',
      {
        doc: [
          'Tags an event. The event must exist and be visible, the tag must exist (400 otherwise); an',
          'existing assignment is a 409. `assigned_by` is always the caller.',
        ],
        status: [201, 'Created'],
        responses: { 409: 'Already assigned' },
      },
    ],
    [
      'GET {tag_id}/{event_id} get_event_tag = eventsTags.get(user, tag_id: number, event_id: number): EventTagResponse',
      {
        doc: [
          '@isLong tag_id must be an integer >= 0',
          '@minimum tag_id 0',
          '@isLong event_id must be an integer >= 0',
          '@minimum event_id 0',
        ],
        responses: { 404: 'Not assigned, or the event is hidden' },
      },
    ],
    [
      'DELETE {tag_id}/{event_id} delete_event_tag = eventsTags.remove(user, tag_id: number, event_id: number)',
      {
        doc: [
          '@isLong tag_id must be an integer >= 0',
          '@minimum tag_id 0',
          '@isLong event_id must be an integer >= 0',
          '@minimum event_id 0',
        ],
        status: [204, 'Deleted'],
        responses: { 404: 'Not assigned, or the event is hidden' },
      },
    ],
  ],
});
