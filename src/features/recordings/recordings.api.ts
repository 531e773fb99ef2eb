import { controller } from '../controller-spec.js';

export default controller({
  name: 'RecordingsController',
  comment: [
    'Recordings addressed by time: which events cover a range, merged, with the gaps',
    '(docs/recordings.md). Gated as the event routes are, with their monitor rules.',
  ],
  route: 'api/v3',
  tag: 'Recordings',
  security: ['events'],
  responses: {
    400: 'Invalid time, range or monitor list',
    403: 'Events permission required',
    404: 'No such monitor, or it is hidden',
  },
  imports: {
    './recordings-service.js': ['RecordingsService', 'MonitorRecordings', 'RecordingsResponse'],
  },
  services: { recordings: 'RecordingsService' },
  operations: [
    [
      'GET monitors/{id}/recordings list_monitor_recordings = recordings.forMonitor(user, id: Id, { from: string, to?: string, merged_only?: boolean }): MonitorRecordings',
      {
        doc: [
          'What a monitor recorded in a time range: its events in time order (`spans`), the events',
          'that overlap or follow each other within a second joined (`merged`), and the holes',
          '(`gaps`, up to now). Times are UTC with `Z`. The range is at most',
          '`recordings.max_range_hours` long (a week by default).',
          '@param from Start of the range: ISO 8601 (with `Z`/offset an instant; without, ZoneMinder local time), `now`, or `-N unit` (second..month).',
          '@param to End of the range (exclusive), as `from`; default now.',
          '@param merged_only Leave `spans` empty (a timeline needs only `merged` and `gaps`).',
        ],
      },
    ],
    [
      'GET recordings list_recordings = recordings.forMonitorList(user, monitor_ids: string, { from: string, to?: string, merged_only?: boolean }): RecordingsResponse',
      {
        doc: [
          'As `GET /monitors/{id}/recordings`, for several monitors in one answer (a timeline).',
          '@param monitor_ids Comma-separated monitor ids, at most 100; each must be visible to the caller.',
          '@param from Start of the range, as for one monitor.',
          '@param to End of the range (exclusive); default now.',
          '@param merged_only Leave every `spans` empty.',
        ],
      },
    ],
  ],
});
