import { controller } from '../controller-spec.js';

export default controller({
  name: 'EventsController',
  route: 'api/v3/events',
  tag: 'Events',
  security: ['events'],
  responses: { 403: 'Events permission required' },
  imports: {
    './events-service.js': [
      'EventsService',
      'EventCountsByMonitorResponse',
      'EventCountsResponse',
      'EventCreateRequest',
      'EventResponse',
      'EventUpdateRequest',
      'PaginatedEventsResponse',
    ],
  },
  services: { events: 'EventsService' },
  operations: [
    [
      'GET / listEvents = events.list(user, { page?: PageNumber, page_size?: PageSize, monitor_id?: Id, start_time?: string, end_time?: string, sort?: string, direction?: string, alarm_frames_min?: Id, archived?: boolean, cause?: string, name?: string, notes?: string, tag_id?: string, storage_id?: Id }): PaginatedEventsResponse [polled]',
      {
        doc: [
          'Lists events of the monitors the caller may see, newest first by default. Event start/end',
          'times are UTC with `Z`; `start_time`/`end_time` take ISO 8601 (with `Z`/offset: an instant;',
          'without: ZoneMinder local time).',
          '@param monitor_id Only events of this monitor.',
          '@param start_time Events that started at or after this time.',
          '@param end_time Events that ended at or before this time (open events never match).',
          '@param sort One of start_time, end_time, alarm_frames, max_score, avg_score, tot_score, length, id, name, cause, monitor_id, notes, frames (default start_time).',
          '@param direction asc or desc (default desc).',
          '@param alarm_frames_min Events with at least this many alarm frames.',
          '@param archived Only archived (true) or unarchived (false) events.',
          '@param cause Case-insensitive substring of the cause.',
          '@param name Case-insensitive substring of the name.',
          '@param notes Case-insensitive substring of the notes.',
          '@param tag_id Comma-separated tag ids: events carrying any of them.',
          '@param storage_id Only events on this storage (0: the default storage).',
        ],
        responses: { 400: 'Invalid filter, sort or paging value' },
      },
    ],
    [
      'POST / createEvent = events.create(user, body: EventCreateRequest): EventResponse',
      {
        doc: ['Creates an event row (no media), with its bucket rows and Event_Summaries counters.'],
        status: [201, 'Created'],
        responses: { 400: 'Invalid input, unknown monitor or storage' },
      },
    ],
    [
      'GET counts/{hours} getEventCounts = events.counts(user, hours: number): EventCountsResponse',
      {
        doc: [
          'Events per hour over the last `hours` hours (hours with no event are left out).',
          '@isLong hours must be an integer',
        ],
        responses: { 400: 'hours is not 1..87600' },
      },
    ],
    [
      'GET counts-by-monitor/{hours} getEventCountsByMonitor = events.countsByMonitor(user, hours: number): EventCountsByMonitorResponse',
      {
        doc: [
          'Events per monitor over the last `hours` hours; every visible monitor is listed.',
          '@isLong hours must be an integer',
        ],
        responses: { 400: 'hours is not 1..87600' },
      },
    ],
    [
      'GET {id} getEvent = events.get(user, id: BigId): EventResponse',
      { responses: { 400: 'Invalid id', 404: 'No such event, or its monitor is hidden' } },
    ],
    [
      'PATCH {id} updateEvent = events.update(user, id: BigId, body: EventUpdateRequest): EventResponse',
      {
        doc: ['Partial update; null clears cause and notes and leaves the other fields unchanged.'],
        responses: { 400: 'Invalid input', 404: 'No such event, or its monitor is hidden' },
      },
    ],
    [
      'DELETE {id} deleteEvent = events.remove(user, id: BigId)',
      {
        doc: [
          "Deletes the event's rows and, when its Storage has DoDelete=1, its directory. Open, archived",
          'and locked events are refused with 409.',
        ],
        status: [204, 'Deleted'],
        responses: {
          400: 'Invalid id',
          404: 'No such event, or its monitor is hidden',
          409: 'The event is still being recorded, archived or locked',
        },
      },
    ],
  ],
});
