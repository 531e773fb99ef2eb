// The error contract with the reference v3 service (SteveGilvarry/zm-api), as data: for every
// resource operation with an id in its path, the kind and code of its 404; the paging bounds and
// required create inputs the reference enforces. Each row names the reference source the fact was
// read from (file, function or struct). test/contract/reference-errors.test.ts checks every row
// against the running service. Playback, media and live routes are out of scope (MEDIA_ROUTES).
import { NotFoundResource, type NotFoundResourceName } from '../../src/errors.js';

/** Reference source for the rows whose route the reference does not serve. */
export const NOT_IN_REFERENCE = 'not served by the reference: zmgate keeps NOT_FOUND_ERROR, code null';

export interface NotFoundRow {
  /** "METHOD /api/v3/template", as in src/generated/openapi.json. */
  operation: string;
  /** The request: the template with missing ids filled in. */
  path: string;
  body?: unknown;
  kind: string;
  code: number | null;
  /** Where the reference picks this kind ("src/service/x.rs fn y"), or NOT_IN_REFERENCE. */
  ref: string;
}

export interface NoNotFoundRow {
  operation: string;
  reason: string;
}

const MISSING = 999999;

/**
 * Rows for the operations on one resource: `ops` are "METHOD template" with `{…}` filled by
 * MISSING (or `fill`), `resource` the reference's ResourceType (null: no typed kind).
 */
function rows(
  resource: NotFoundResourceName | null,
  ref: string,
  ops: string[],
  options: { fill?: string; body?: unknown } = {},
): NotFoundRow[] {
  return ops.map((op) => {
    const [method, template] = op.split(' ');
    return {
      operation: `${method} /api/v3${template.split('?')[0]}`,
      path: template.replace(/\{[a-z_]+\}/g, options.fill ?? String(MISSING)),
      ...(method === 'PATCH' || method === 'PUT' ? { body: options.body ?? {} } : {}),
      kind: resource ? `${resource}_NOT_FOUND_ERROR` : 'NOT_FOUND_ERROR',
      code: resource ? NotFoundResource[resource] : null,
      ref,
    };
  });
}

const crud = (base: string, patch = 'PATCH') => [`GET ${base}/{id}`, `${patch} ${base}/{id}`, `DELETE ${base}/{id}`];

export const NOT_FOUND_ROWS: NotFoundRow[] = [
  // ai.rs: one not_found helper for datasets, models and object classes.
  ...rows('CONFIG', 'src/service/ai.rs fn not_found', [
    ...crud('/ai/datasets'),
    ...crud('/ai/models'),
    ...crud('/ai/object-classes'),
  ]),
  ...rows(null, NOT_IN_REFERENCE, [...crud('/ai/detection-settings'), ...crud('/ai/detections')]),
  ...rows(
    'CONFIG',
    'src/service/config.rs fn get_by_name, fn update_value',
    ['GET /configs/{name}', 'PUT /configs/{name}'],
    {
      fill: 'ZM_NO_SUCH_OPTION',
      body: { value: '1' },
    },
  ),
  ...rows('MESSAGE', 'src/service/control_presets.rs fn preset_not_found', [
    'GET /control_presets/{monitor_id}/{preset}',
    'PATCH /control_presets/{monitor_id}/{preset}',
    'DELETE /control_presets/{monitor_id}/{preset}',
  ]),
  ...rows('MESSAGE', 'src/service/controls.rs fn get_by_id, update, delete', crud('/controls')),
  ...rows('MESSAGE', 'src/service/devices.rs fn get_by_id, update, delete', crud('/devices')),
  ...rows(null, NOT_IN_REFERENCE, crud('/encoder-templates')),
  ...rows('FILE', 'src/service/event_data.rs fn event_data_not_found', crud('/event-data')),
  ...rows('EVENT_SUMMARY', 'src/service/event_summaries.rs fn summary_not_found', [
    'GET /event-summaries/{monitor_id}',
  ]),
  ...rows('EVENT_TAG', 'src/service/events_tags.rs fn event_tag_not_found', [
    'GET /events-tags/{tag_id}/{event_id}',
    'DELETE /events-tags/{tag_id}/{event_id}',
  ]),
  // events.rs answers a missing event with MESSAGE; its playback handlers use EVENT.
  ...rows('MESSAGE', 'src/service/events.rs fn event_not_found (get_by_id, update, delete)', crud('/events')),
  ...rows('EVENT', 'src/handlers/events_playback.rs fn not_found_event', ['GET /events/{id}/info']),
  ...rows('MESSAGE', 'src/service/filters.rs fn not_found, delete', crud('/filters', 'PUT')),
  ...rows('FILE', 'src/service/frames.rs fn frame_not_found', crud('/frames'), { body: { type: 'Normal' } }),
  ...rows('FILE', 'src/service/groups_monitors.rs fn group_monitor_not_found', [
    'GET /groups-monitors/{id}',
    'DELETE /groups-monitors/{id}',
  ]),
  ...rows('FILE', 'src/service/groups_permissions.rs fn get_by_id, update, delete', crud('/groups-permissions')),
  ...rows('USER', 'src/service/groups.rs fn not_found', crud('/groups', 'PUT')),
  ...rows('MESSAGE', 'src/service/logs.rs fn get_by_id', ['GET /logs/{id}']),
  ...rows('MESSAGE', 'src/service/manufacturers.rs fn get_by_id, update, delete', crud('/manufacturers')),
  ...rows(null, NOT_IN_REFERENCE, [...crud('/maps'), ...crud('/menu-items')]),
  ...rows('MESSAGE', 'src/service/models.rs fn get_by_id, update, delete', crud('/models')),
  ...rows(
    'MONITOR',
    'src/service/monitor_status.rs fn status_not_found',
    ['GET /monitor-status/{monitor_id}', 'PATCH /monitor-status/{monitor_id}'],
    { body: { capture_fps: '1', analysis_fps: '1' } },
  ),
  ...rows('MESSAGE', 'src/service/monitor_presets.rs fn get_by_id, update, delete', crud('/monitor_presets')),
  ...rows('FILE', 'src/service/monitors_permissions.rs fn get_by_id, update, delete', crud('/monitors-permissions')),
  // monitor.rs: a missing monitor is MONITOR on read and on alarm/state, FILE on update and delete.
  ...rows('MONITOR', 'src/service/monitor.rs fn monitor_not_found (get)', ['GET /monitors/{id}']),
  ...rows('MONITOR', 'src/service/monitor.rs fn control_alarm', ['PATCH /monitors/{id}/alarm'], {
    body: { action: 'on' },
  }),
  ...rows('MONITOR', 'src/service/monitor.rs fn update_state', ['PATCH /monitors/{id}/state'], {
    body: { state: 'start' },
  }),
  ...rows('FILE', 'src/service/monitor.rs fn update, delete', ['PATCH /monitors/{id}', 'DELETE /monitors/{id}']),
  ...rows('MONITOR', 'not served by the reference: zmgate answers a missing monitor as its monitor routes do', [
    'GET /monitors/{id}/recordings?from=-1%20hour',
    'GET /monitors/{id}/recordings/still.jpg?at=2026-01-10T08:00:00Z',
  ]),
  ...rows('EVENT', 'src/handlers/synopsis.rs (the event looked up before the disabled check)', [
    'GET /events/{id}/synopsis',
    'GET /events/{id}/synopsis/review',
    'GET /events/{id}/synopsis/layout',
    'GET /events/{id}/synopsis/mp4',
  ]),
  ...rows('MONITOR', 'src/service/zones.rs fn list_by_monitor (zone_not_found for a hidden monitor)', [
    'GET /monitors/{id}/zones',
  ]),
  ...rows('MESSAGE', 'src/service/montage_layouts.rs fn get_by_id, update, delete', crud('/montage_layouts')),
  ...rows(null, NOT_IN_REFERENCE, [
    ...crud('/notifications'),
    ...crud('/role-groups-permissions'),
    ...crud('/role-monitors-permissions'),
    ...crud('/roles'),
  ]),
  ...rows('FILE', 'src/service/object_types.rs fn get_by_id, update, delete', crud('/object-types')),
  ...rows('MONITOR', 'src/service/ptz.rs fn get_monitor_and_control, get_capabilities, get_status', [
    'GET /ptz/monitors/{id}/capabilities',
    'GET /ptz/monitors/{id}/status',
    'DELETE /ptz/monitors/{id}/presets/{preset_id}',
  ]),
  ...rows('FILE', 'src/service/reports.rs fn get_by_id, update, delete', crud('/reports'), {
    body: { start_date_time: '2026-01-01T00:00:00', end_date_time: '2026-01-02T00:00:00' },
  }),
  ...rows('FILE', 'src/service/server_stats.rs fn get_by_id, delete', [
    'GET /server-stats/{id}',
    'DELETE /server-stats/{id}',
  ]),
  ...rows('MESSAGE', 'src/service/servers.rs fn get_by_id, update, delete', crud('/servers')),
  ...rows('MESSAGE', 'src/service/sessions.rs fn get_by_id, update, delete', crud('/sessions'), {
    fill: 'nosuchsessionid',
  }),
  ...rows('FILE', 'src/service/snapshots_events.rs fn not_found', [
    'GET /snapshots-events/{id}',
    'DELETE /snapshots-events/{id}',
  ]),
  ...rows('MESSAGE', 'src/service/snapshots.rs fn get_by_id, update, delete', crud('/snapshots')),
  ...rows('MESSAGE', 'src/service/states.rs fn get_by_id, update, delete', crud('/states')),
  ...rows('MESSAGE', 'src/service/stats.rs fn stat_not_found', crud('/stats')),
  ...rows('MESSAGE', 'src/service/storage.rs fn get_by_id, update, delete', crud('/storage')),
  ...rows('MESSAGE', 'src/service/tags.rs fn get_by_id, update, delete', crud('/tags')),
  ...rows('MESSAGE', 'src/service/triggers_x10.rs fn trigger_not_found', [
    'GET /triggers_x10/{monitor_id}',
    'PATCH /triggers_x10/{monitor_id}',
    'DELETE /triggers_x10/{monitor_id}',
  ]),
  ...rows('MESSAGE', 'src/service/user_preferences.rs fn get_by_id, update, delete', crud('/user_preferences')),
  ...rows('USER', 'src/service/users.rs fn get_by_id, update, delete', crud('/users', 'PUT')),
  ...rows('MESSAGE', 'src/service/zone_presets.rs fn get_by_id, update, delete', crud('/zone-presets')),
  ...rows('MONITOR', 'src/service/zones.rs fn zone_not_found', crud('/zones', 'PUT')),
];

export const NO_NOT_FOUND: NoNotFoundRow[] = [
  {
    operation: 'GET /api/v3/daemons/{id}',
    reason:
      'CONFIG_NOT_FOUND_ERROR, code 5 (src/service/daemon.rs fn get_daemon) only with the daemon manager on; ' +
      'without it (passive mode, as here) a 503. Checked in test/daemons/takeover.test.ts',
  },
  { operation: 'GET /api/v3/events/counts/{hours}', reason: '{hours} is a window, not an id: no row to miss' },
  {
    operation: 'GET /api/v3/events/counts-by-monitor/{hours}',
    reason: '{hours} is a window, not an id: no row to miss',
  },
];

/**
 * Out of scope: the playback, media and live routes (their 404s are the playback and live suites'):
 * everything under /live/, an event's stream, video, thumbnail and frame images, a monitor's still.
 */
export const MEDIA_ROUTES =
  /^\/api\/v3\/(live\/|events\/\{id\}\/(stream|video|thumbnail|frames\/)|frames\/\{id\}\/image$|monitors\/\{monitor_id\}\/snapshot$)/;

export interface ValidationRow {
  operation: string;
  path: string;
  method: 'GET' | 'POST';
  body?: unknown;
  status: number;
  kind: string | null;
  /** The parameter or field the error names in `details` (first element of a pair). */
  names?: string;
  ref: string;
}

const paging = (path: string, ref: string): ValidationRow[] =>
  (['page_size=0', 'page=0', 'page_size=1001'] as const).map((q) => ({
    operation: `GET /api/v3${path}`,
    method: 'GET',
    path: `${path}?${q}`,
    status: 400,
    kind: 'INVALID_INPUT_ERROR',
    names: q.split('=')[0],
    ref,
  }));

/** Lists whose handler does not validate PaginationParams: the reference clamps 0 to 1, zmgate reads 0 as the default. */
const lenient = (path: string, ref: string): ValidationRow => ({
  operation: `GET /api/v3${path}`,
  method: 'GET',
  path: `${path}?page=0&page_size=0`,
  status: 200,
  kind: null,
  ref,
});

export const VALIDATION_ROWS: ValidationRow[] = [
  ...paging(
    '/logs',
    'src/handlers/logs.rs fn list_logs: LogQueryParams.validate() (src/dto/request/logs.rs garde range page >= 1, page_size 1..1000)',
  ),
  ...paging(
    '/configs',
    'src/handlers/configs.rs: params.validate() (src/dto/request/config.rs garde range page >= 1, page_size 1..1000)',
  ),
  ...paging(
    '/events',
    'src/handlers/events.rs: params.validate() (src/dto/request/events.rs garde range page >= 1, page_size 1..1000)',
  ),
  lenient(
    '/controls',
    'src/handlers/controls.rs: Query<PaginationParams> unvalidated; src/dto/pagination.rs fn page, page_size clamp',
  ),
  lenient(
    '/zone-presets',
    'src/handlers/zone_presets.rs: Query<PaginationParams> unvalidated; src/dto/pagination.rs clamps',
  ),
  {
    operation: 'POST /api/v3/zone-presets',
    method: 'POST',
    path: '/zone-presets',
    body: { name: 'x' },
    status: 400,
    kind: 'INVALID_INPUT_ERROR',
    names: 'type',
    ref: 'src/dto/request/zone_presets.rs struct CreateZonePresetRequest: type, units, check_method not Option (422 there; 400 here, see clients.md)',
  },
];

/**
 * The inputs every create requires, per the reference's Create*Request struct (fields that are
 * not Option and have no serde default). `zmgate` lists what zmgate requires where it
 * deliberately differs (docs/contract/clients.md, "Differences from the reference").
 */
export interface RequiredRow {
  operation: string;
  path: string;
  reference: string[];
  zmgate?: string[];
  ref: string;
}

const req = (path: string, reference: string[], ref: string, zmgate?: string[]): RequiredRow => ({
  operation: `POST /api/v3${path}`,
  path,
  reference,
  ...(zmgate ? { zmgate } : {}),
  ref,
});

export const REQUIRED_ROWS: RequiredRow[] = [
  req(
    '/zone-presets',
    ['check_method', 'name', 'type', 'units'],
    'src/dto/request/zone_presets.rs struct CreateZonePresetRequest',
  ),
  req('/controls', ['name', 'type'], 'src/dto/request/controls.rs struct CreateControlRequest'),
  req('/devices', ['key_string', 'name', 'type'], 'src/dto/request/devices.rs struct CreateDeviceRequest'),
  req('/storage', ['enabled', 'name', 'path', 'type'], 'src/dto/request/storage.rs struct CreateStorageRequest'),
  req('/triggers_x10', ['monitor_id'], 'src/dto/request/triggers_x10.rs struct CreateTriggerX10Request'),
  req('/users', ['email', 'password', 'username'], 'src/dto/request/users.rs struct CreateUserRequest', [
    'password',
    'username',
  ]),
  req(
    '/monitors/{id}/zones',
    ['coords', 'name', 'num_coords', 'type', 'units'],
    'src/dto/request/zones.rs struct CreateZoneRequest',
    ['coords', 'name'],
  ),
  req('/tags', ['name'], 'src/dto/request/tags.rs struct CreateTagRequest'),
  req('/groups', ['name'], 'src/dto/request/groups.rs struct CreateGroupRequest'),
  req('/manufacturers', ['name'], 'src/dto/request/manufacturers.rs struct CreateManufacturerRequest'),
  req('/models', ['name'], 'src/dto/request/models.rs struct CreateModelRequest'),
  req('/servers', ['name'], 'src/dto/request/servers.rs struct CreateServerRequest'),
  req('/states', ['definition', 'is_active', 'name'], 'src/dto/request/states.rs struct CreateStateRequest'),
  req('/snapshots', [], 'src/dto/request/snapshots.rs struct CreateSnapshotRequest'),
  req('/filters', ['name'], 'src/dto/request/filters.rs struct CreateFilterRequest'),
  req('/monitor_presets', ['name', 'type'], 'src/dto/request/monitor_presets.rs struct CreateMonitorPresetRequest'),
  req(
    '/frames',
    ['delta', 'event_id', 'frame_id', 'score', 'time_stamp', 'type'],
    'src/dto/request/frames.rs struct CreateFrameRequest',
  ),
  req('/events-tags', ['event_id', 'tag_id'], 'src/dto/request/events_tags.rs struct CreateEventTagRequest'),
  req('/object-types', [], 'src/dto/request/object_types.rs struct CreateObjectTypeRequest'),
  req('/montage_layouts', ['name', 'user_id'], 'src/dto/request/montage_layouts.rs struct CreateMontageLayoutRequest'),
  req('/user_preferences', ['user_id'], 'src/dto/request/user_preferences.rs struct CreateUserPreferenceRequest'),
  req(
    '/groups-monitors',
    ['group_id', 'monitor_id'],
    'src/dto/request/groups_monitors.rs struct CreateGroupMonitorRequest',
  ),
  req(
    '/groups-permissions',
    ['group_id', 'permission', 'user_id'],
    'src/dto/request/groups_permissions.rs struct CreateGroupPermissionRequest',
  ),
  req(
    '/monitors-permissions',
    ['monitor_id', 'permission', 'user_id'],
    'src/dto/request/monitors_permissions.rs struct CreateMonitorPermissionRequest',
  ),
  req(
    '/control_presets',
    ['label', 'monitor_id', 'preset'],
    'src/dto/request/control_presets.rs struct CreateControlPresetRequest',
  ),
  req('/ai/datasets', ['name', 'num_classes'], 'src/dto/request/ai.rs struct CreateAiDatasetRequest'),
  req('/ai/models', ['name'], 'src/dto/request/ai.rs struct CreateAiModelRequest'),
  req(
    '/ai/object-classes',
    ['class_index', 'class_name', 'dataset_id'],
    'src/dto/request/ai.rs struct CreateAiObjectClassRequest',
  ),
  req('/reports', [], 'src/dto/request/reports.rs struct CreateReportRequest', ['end_date_time', 'start_date_time']),
  req('/server-stats', [], 'src/dto/request/server_stats.rs struct CreateServerStatRequest', [
    'cpu_idle_percent',
    'cpu_load',
    'cpu_nice_percent',
    'cpu_system_percent',
    'cpu_usage_percent',
    'cpu_user_percent',
  ]),
  req('/event-data', [], 'src/dto/request/event_data.rs struct CreateEventDataRequest', ['timestamp']),
  req(
    '/stats',
    [
      'alarm_pixels',
      'blob_pixels',
      'blobs',
      'event_id',
      'filter_pixels',
      'frame_id',
      'max_blob_size',
      'max_x',
      'max_y',
      'min_blob_size',
      'min_x',
      'min_y',
      'monitor_id',
      'pixel_diff',
      'score',
      'zone_id',
    ],
    'src/dto/request/stats.rs struct CreateStatRequest',
  ),
  req(
    '/snapshots-events',
    ['event_id', 'snapshot_id'],
    'src/dto/request/snapshots_events.rs struct CreateSnapshotEventRequest',
  ),
  req(
    '/events',
    ['height', 'length', 'monitor_id', 'name', 'orientation', 'storage_id', 'width'],
    'src/dto/request/events.rs struct EventCreateRequest',
  ),
  req(
    '/monitors',
    [
      'alarm_frame_count',
      'alarm_ref_blend_perc',
      'analysing',
      'analysis_image',
      'analysis_source',
      'analysis_update_delay',
      'brightness',
      'capturing',
      'channel',
      'colour',
      'colours',
      'contrast',
      'controllable',
      'decoding',
      'decoding_enabled',
      'default_rate',
      'default_scale',
      'deinterlacing',
      'deleted',
      'device',
      'event_close_mode',
      'event_end_command',
      'event_prefix',
      'event_start_command',
      'exif',
      'format',
      'fps_report_interval',
      'frame_skip',
      'function',
      'height',
      'hue',
      'image_buffer_count',
      'importance',
      'janus_audio_enabled',
      'janus_enabled',
      'label_size',
      'label_x',
      'label_y',
      'max_image_buffer_count',
      'min_section_length',
      'modect_during_ptz',
      'motion_frame_skip',
      'mqtt_enabled',
      'mqtt_subscriptions',
      'name',
      'onvif_event_listener',
      'onvif_events_path',
      'onvif_options',
      'onvif_password',
      'onvif_url',
      'onvif_username',
      'orientation',
      'palette',
      'port',
      'post_event_count',
      'pre_event_count',
      'record_audio',
      'recording',
      'recording_source',
      'ref_blend_perc',
      'restream',
      'return_location',
      'rtsp2_web_enabled',
      'rtsp2_web_type',
      'rtsp_server',
      'rtsp_stream_name',
      'save_jpe_gs',
      'section_length',
      'section_length_warn',
      'signal_check_colour',
      'signal_check_points',
      'soap_wsa_compl',
      'startup_delay',
      'storage_id',
      'stream_replay_buffer',
      'sub_path',
      'track_motion',
      'triggers',
      'type',
      'use_amcrest_api',
      'video_writer',
      'warmup_count',
      'web_colour',
      'width',
      'zone_count',
    ],
    'src/dto/request/monitor.rs struct CreateMonitorRequest',
    ['name'],
  ),
];
