// /monitors: CRUD, enum spellings, Function ↔ modes, validation, paging, the row ACL, and the
// alarm/state routes that answer 503 after their checks.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope, request } from '../helpers/http.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};
let visibleId: number;
let viewOnlyId: number;
let hiddenId: number;

const q = (sql: string, params: unknown[] = []) => db.db.query<any>(sql, params, db.name);

async function loginAs(name: string) {
  const res = await request(app.api('/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: name, password: name }),
  });
  return res.body.access_token as string;
}

const call = (method: string, path: string, body?: unknown, as = 'admin') =>
  request(app.api(path), {
    method,
    headers: {
      authorization: `Bearer ${tokens[as]}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const detailNames = (body: any): string => (body?.details ?? []).map(([k]: string[]) => k).join(',');

test.before(async () => {
  db = await zmDatabase('monitors');
  // Times go out as UTC instants: pin ZoneMinder's zone so they do not follow the machine's.
  await db.db.query("INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')", [], db.name);
  const users: Array<[string, Record<string, string>]> = [
    ['admin', { Monitors: 'Edit', System: 'Edit' }],
    ['creator', { Monitors: 'Create' }],
    ['viewer', { Monitors: 'View' }],
    ['limited', { Monitors: 'Edit' }],
    ['nomon', { Events: 'View' }],
  ];
  for (const [name, perms] of users) {
    ids[name] = await insertUser(db, { username: name, password: name, stored: bcrypt.hashSync(name, 4), perms });
  }
  const mk = async (name: string) =>
    Number((await q('INSERT INTO Monitors (Name) VALUES (?) RETURNING Id', [name]))[0].Id);
  visibleId = await mk('acl-visible');
  viewOnlyId = await mk('acl-view-only');
  hiddenId = await mk('acl-hidden');
  await q('INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, ?, ?), (?, ?, ?)', [
    ids.limited,
    viewOnlyId,
    'View',
    ids.limited,
    hiddenId,
    'None',
  ]);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  for (const name of Object.keys(ids)) tokens[name] = await loginAs(name);
});
test.after.always(async () => {
  if (process.env.DEBUG_LOGS)
    for (const l of app?.logs ?? []) if (l.level >= 50) console.error(JSON.stringify(l.err ?? l).slice(0, 1500));
  await app?.close();
});

test('create with only a name: database defaults, consistent Function, no passwords in the response', async (t) => {
  const res = await call('POST', '/monitors', { name: 'Minimal', pass: 'secret', onvif_password: 'x', unknown_key: 1 });
  t.is(res.status, 201);
  const m = res.body;
  t.like(m, {
    name: 'Minimal',
    type: 'Local',
    capturing: 'Always',
    analysing: 'Always',
    recording: 'Always',
    function: 'Mocord',
    orientation: 'ROTATE_0',
    save_jpe_gs: 3,
    video_writer: 0,
    storage_id: 0,
    go2rtc_enabled: 0,
    deleted: false,
    enabled: 1,
    zone_count: 0,
    mqtt_subscriptions: '',
    triggers: '',
    default_codec: 'auto',
    event_close_mode: 'system',
    rtsp2_web_type: 'WebRTC',
    decoding: 'Always',
    output_container: null,
    object_detection_object_threshold: 0.4,
    object_detection_nms_threshold: 0.25,
  });
  t.false('pass' in m);
  t.false('onvif_password' in m);
  t.is(typeof m.id, 'number');
  const [row] = await q('SELECT Pass, ONVIF_Password FROM Monitors WHERE Id = ?', [m.id]);
  t.deepEqual({ ...row }, { Pass: 'secret', ONVIF_Password: 'x' }, 'write-only fields are stored');
  t.deepEqual((await call('GET', `/monitors/${m.id}`)).body, m);
});

test('enums: older variant spellings are accepted, stored spellings are emitted', async (t) => {
  const res = await call('POST', '/monitors', {
    name: 'Variants',
    type: 'Curl',
    orientation: 'Rotate90',
    decoding: 'KeyFramesOndemand',
    event_close_mode: 'Idle',
    default_codec: 'Mp4',
    output_container: 'Mkv',
    rtsp2_web_type: 'WebRtc',
    go2rtc_enabled: 1,
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  t.like(res.body, {
    type: 'cURL',
    orientation: 'ROTATE_90',
    decoding: 'KeyFrames+Ondemand',
    event_close_mode: 'idle',
    default_codec: 'MP4',
    output_container: 'mkv',
    rtsp2_web_type: 'WebRTC',
    go2rtc_enabled: 1,
  });
  const [row] = await q('SELECT Type, Orientation, Decoding, Go2RTCEnabled FROM Monitors WHERE Id = ?', [res.body.id]);
  t.deepEqual({ ...row }, { Type: 'cURL', Orientation: 'ROTATE_90', Decoding: 'KeyFrames+Ondemand', Go2RTCEnabled: 1 });
  const stored = await call('PATCH', `/monitors/${res.body.id}`, {
    orientation: 'FLIP_VERT',
    type: 'VNC',
    output_container: null,
  });
  t.like(stored.body, { orientation: 'FLIP_VERT', type: 'VNC', output_container: null });
  const bad = await call('PATCH', `/monitors/${res.body.id}`, { orientation: 'ROTATE_45' });
  t.is(bad.status, 400);
  t.regex(detailNames(bad.body), /orientation/);
});

test('Function and Capturing/Analysing/Recording stay consistent on every write', async (t) => {
  const { body: m } = await call('POST', '/monitors', { name: 'Modes', function: 'Modect' });
  t.like(m, { function: 'Modect', capturing: 'Always', analysing: 'Always', recording: 'OnMotion' });
  const id = m.id;
  t.like((await call('PATCH', `/monitors/${id}`, { recording: 'Always' })).body, {
    function: 'Mocord',
    recording: 'Always',
  });
  t.like((await call('PATCH', `/monitors/${id}`, { analysing: 'None', recording: 'OnMotion' })).body, {
    function: 'Nodect',
  });
  t.like((await call('PATCH', `/monitors/${id}`, { capturing: 'None' })).body, { function: 'None', capturing: 'None' });
  // Only Function written: the modes follow; a monitor switched on from None captures again.
  t.like((await call('PATCH', `/monitors/${id}`, { function: 'Record' })).body, {
    function: 'Record',
    capturing: 'Always',
    analysing: 'None',
    recording: 'Always',
  });
  // Analysis without recording has no legacy name: Monitor (never starts a recording).
  t.like((await call('PATCH', `/monitors/${id}`, { analysing: 'Always', recording: 'None' })).body, {
    function: 'Monitor',
  });
  // Both written: the modes are authoritative.
  t.like(
    (
      await call('PATCH', `/monitors/${id}`, {
        function: 'Mocord',
        capturing: 'Ondemand',
        analysing: 'None',
        recording: 'None',
      })
    ).body,
    {
      function: 'Monitor',
      capturing: 'Ondemand',
    },
  );
  // A PATCH that touches neither leaves Function alone.
  t.like((await call('PATCH', `/monitors/${id}`, { name: 'Modes 2' })).body, { function: 'Monitor', name: 'Modes 2' });
});

test('a full client-style create body (about 120 keys, extras included) is accepted', async (t) => {
  const body = {
    name: 'Full',
    type: 'Ffmpeg',
    function: 'Modect',
    capturing: 'Always',
    analysing: 'Always',
    recording: 'OnMotion',
    decoding: 'Always',
    analysis_source: 'Primary',
    analysis_image: 'FullColour',
    recording_source: 'Primary',
    event_close_mode: 'System',
    default_codec: 'Auto',
    output_container: 'Auto',
    rtsp2_web_type: 'Mse',
    importance: 'Normal',
    orientation: 'Rotate0',
    enabled: 1,
    decoding_enabled: 1,
    deleted: false,
    host: 'cam.local',
    port: '554',
    path: 'rtsp://cam.local/s',
    user: 'u',
    pass: 'p',
    width: 1920,
    height: 1080,
    colours: 4,
    palette: 0,
    storage_id: 0,
    server_id: null,
    image_buffer_count: 3,
    max_image_buffer_count: 0,
    warmup_count: 0,
    pre_event_count: 5,
    post_event_count: 5,
    stream_replay_buffer: 0,
    alarm_frame_count: 1,
    section_length: 600,
    min_section_length: 10,
    frame_skip: 0,
    motion_frame_skip: 0,
    analysis_fps_limit: 5.5,
    max_fps: null,
    alarm_max_fps: null,
    fps_report_interval: 100,
    ref_blend_perc: 6,
    alarm_ref_blend_perc: 6,
    controllable: 0,
    control_id: null,
    track_motion: 0,
    return_location: -1,
    modect_during_ptz: 0,
    default_rate: 100,
    default_scale: '0',
    signal_check_points: 0,
    signal_check_colour: '#0000BE',
    web_colour: '#ff0000',
    exif: 0,
    sequence: null,
    zone_count: 7,
    brightness: -1,
    contrast: -1,
    hue: -1,
    colour: -1,
    event_prefix: 'Event-',
    label_format: '%N - %d/%m/%y %H:%M:%S',
    label_x: 0,
    label_y: 0,
    label_size: 1,
    save_jpe_gs: 0,
    video_writer: 2,
    record_audio: 1,
    restream: 0,
    rtsp2_web_enabled: 0,
    janus_enabled: 0,
    janus_audio_enabled: 0,
    mqtt_enabled: 0,
    mqtt_subscriptions: '',
    soap_wsa_compl: 1,
    startup_delay: 0,
    section_length_warn: 1,
    use_amcrest_api: 0,
    onvif_url: '',
    onvif_username: '',
    onvif_password: '',
    onvif_options: '',
    onvif_events_path: '/Events',
    onvif_event_listener: 0,
    onvif_alarm_text: 'MotionAlarm',
    event_start_command: '',
    event_end_command: '',
    triggers: 'X10',
    device: '',
    channel: 0,
    format: 0,
    method: 'rtpRtsp',
    protocol: 'rtsp',
    sub_path: '',
    rtsp_server: 0,
    rtsp_stream_name: '',
    latitude: 51.5,
    longitude: -0.12,
    id: 999,
    extra_client_key: { nested: true },
  };
  const res = await call('POST', '/monitors', body);
  t.is(res.status, 201, JSON.stringify(res.body));
  t.not(res.body.id, 999, 'id is not writable');
  t.is(res.body.zone_count, 0, 'zone_count is maintained by triggers, not written');
  t.like(res.body, {
    triggers: 'X10',
    type: 'Ffmpeg',
    video_writer: 2,
    record_audio: 1,
    analysis_fps_limit: 5.5,
    latitude: 51.5,
    longitude: -0.12,
    rtsp2_web_type: 'MSE',
  });
});

test('validation: 400 naming the field for ranges, lengths, enums, unknown references', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{}, /name/],
    [{ name: '' }, /name/],
    [{ name: 'x'.repeat(65) }, /name/],
    [{ name: 'ok', host: 'h'.repeat(65) }, /host/],
    [{ name: 'ok', save_jpe_gs: 4 }, /save_jpe_gs/],
    [{ name: 'ok', video_writer: 3 }, /video_writer/],
    [{ name: 'ok', record_audio: 2 }, /record_audio/],
    [{ name: 'ok', width: 70000 }, /width/],
    [{ name: 'ok', brightness: 9_000_000 }, /brightness/],
    [{ name: 'ok', go2rtc_enabled: 2 }, /go2rtc_enabled/],
    [{ name: 'ok', max_fps: 1000 }, /max_fps/],
    [{ name: 'ok', triggers: 'X11' }, /triggers/],
    [{ name: 'ok', type: 'Webcam' }, /type/],
    [{ name: 'ok', function: 'Record2' }, /function/],
    [{ name: 'ok', manufacturer_id: 4242 }, /manufacturer_id/],
    [{ name: 'ok', model_id: 4242 }, /model_id/],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/monitors', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(isEnvelope(res.body));
    t.regex(detailNames(res.body), field, JSON.stringify(res.body));
  }
  for (const path of ['/monitors/abc', '/monitors/-1', '/monitors/1.5'])
    t.is((await call('GET', path)).status, 400, path);
});

test('a value too long for its column in bytes is a 400 VALUE_TOO_LONG naming the column', async (t) => {
  // 200 characters pass the 255-character check, but '€' is 3 bytes and Device is a TINYTEXT.
  const res = await call('POST', '/monitors', { name: 'Bytes', device: '€'.repeat(200) });
  t.is(res.status, 400);
  t.is(res.body.kind, 'VALUE_TOO_LONG');
  t.deepEqual(res.body.details, [['field', 'Device']]);
  t.false(res.text.includes('€'), 'the rejected value is never echoed');
});

// Serial: other tests in this file add and remove monitors between the two list calls.
test.serial('paging: page_size cap, defaults, per_page ignored', async (t) => {
  const all = await call('GET', '/monitors?page_size=1000&per_page=5');
  t.is(all.status, 200);
  t.is(all.body.per_page, 1000);
  t.is(all.body.items.length, all.body.total);
  t.is((await call('GET', '/monitors')).body.per_page, 25);
  const p2 = await call('GET', '/monitors?page=2&page_size=1');
  t.is(p2.body.current_page, 2);
  t.is(p2.body.items.length, 1);
  t.is(p2.body.last_page, p2.body.total);
  t.is(p2.body.items[0].id, all.body.items[1].id, 'ordered by id');
  for (const qs of ['page_size=1001', 'page=-1', 'page_size=x']) {
    const res = await call('GET', `/monitors?${qs}`);
    t.is(res.status, 400, qs);
    t.is(res.body.kind, 'INVALID_INPUT_ERROR');
  }
});

test('row ACL: lists filter, hidden ids are 404 MONITOR_NOT_FOUND_ERROR like missing ones, view-only is 403 on writes', async (t) => {
  const list = await call('GET', '/monitors?page_size=1000', undefined, 'limited');
  const seen = list.body.items.map((m: any) => m.id);
  t.true(seen.includes(visibleId));
  t.true(seen.includes(viewOnlyId));
  t.false(seen.includes(hiddenId));
  t.is(list.body.total, seen.length, 'total counts visible rows only');
  const hidden = await call('GET', `/monitors/${hiddenId}`, undefined, 'limited');
  const missing = await call('GET', '/monitors/999999', undefined, 'limited');
  t.is(hidden.status, 404);
  t.is(hidden.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  t.is(hidden.body.code, 4);
  t.deepEqual(Object.keys(hidden.body), Object.keys(missing.body));
  t.is(missing.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  t.is((await call('GET', `/monitors/${hiddenId}`)).status, 200, 'admin has no rows: default allow');
  t.is((await call('PATCH', `/monitors/${hiddenId}`, { name: 'x' }, 'limited')).status, 404);
  t.is((await call('DELETE', `/monitors/${hiddenId}`, undefined, 'limited')).status, 404);
  const viewOnly = await call('PATCH', `/monitors/${viewOnlyId}`, { notes: 'n' }, 'limited');
  t.is(viewOnly.status, 403);
  t.is(viewOnly.body.kind, 'PERMISSION_DENIED_ERROR');
  t.is((await call('PATCH', `/monitors/${visibleId}`, { notes: 'edited' }, 'limited')).body.notes, 'edited');
  const create = await call('POST', '/monitors', { name: 'by limited' }, 'limited');
  t.is(create.status, 403, 'creating needs an unrestricted scope');
  t.is(
    (await call('POST', '/monitors', { name: 'by creator' }, 'creator')).status,
    201,
    'Monitors=Create counts as Edit',
  );
});

test('feature RBAC: View reads but cannot write; no Monitors area is 403 before any lookup', async (t) => {
  t.is((await call('GET', '/monitors', undefined, 'viewer')).status, 200);
  t.is((await call('POST', '/monitors', { name: 'v' }, 'viewer')).status, 403);
  t.is((await call('PATCH', `/monitors/${visibleId}`, { name: 'v' }, 'viewer')).status, 403);
  t.is((await call('GET', '/monitors', undefined, 'nomon')).status, 403);
  t.is((await call('GET', '/monitors/999999', undefined, 'nomon')).status, 403);
});

test('delete: 204, zones and memberships go with it, then 404', async (t) => {
  const { body: m } = await call('POST', '/monitors', { name: 'Doomed' });
  await q("INSERT INTO Zones (MonitorId, Name, Coords) VALUES (?, 'z', '0,0 10,0 10,10')", [m.id]);
  await q('INSERT INTO Monitor_Status (MonitorId, Status) VALUES (?, ?)', [m.id, 'Running']);
  const del = await call('DELETE', `/monitors/${m.id}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  t.is((await call('GET', `/monitors/${m.id}`)).status, 404);
  t.is((await call('DELETE', `/monitors/${m.id}`)).status, 404);
  t.is((await q('SELECT COUNT(*) AS n FROM Zones WHERE MonitorId = ?', [m.id]))[0].n, 0);
  t.is((await q('SELECT COUNT(*) AS n FROM Monitor_Status WHERE MonitorId = ?', [m.id]))[0].n, 0);
});

test('alarm: validated, feature- and ACL-checked, then 503 SERVICE_UNAVAILABLE_ERROR', async (t) => {
  const status = await call('PATCH', `/monitors/${visibleId}/alarm`, { action: 'status' });
  t.is(status.status, 503);
  t.is(status.body.kind, 'SERVICE_UNAVAILABLE_ERROR');
  t.true(isEnvelope(status.body));
  t.is((await call('PATCH', `/monitors/${visibleId}/alarm`, { action: 'on', cause: 'API', score: 100 })).status, 503);
  const bad = await call('PATCH', `/monitors/${visibleId}/alarm`, { action: 'explode' });
  t.is(bad.status, 400);
  t.regex(detailNames(bad.body), /action/);
  t.is((await call('PATCH', `/monitors/${visibleId}/alarm`, { action: 'on', cause: 'c'.repeat(32) })).status, 400);
  t.is((await call('PATCH', `/monitors/${hiddenId}/alarm`, { action: 'status' }, 'limited')).status, 404);
  t.is((await call('PATCH', '/monitors/999999/alarm', { action: 'status' })).status, 404);
  t.is((await call('PATCH', `/monitors/${viewOnlyId}/alarm`, { action: 'on' }, 'limited')).status, 403);
  t.is((await call('PATCH', `/monitors/${viewOnlyId}/alarm`, { action: 'status' }, 'limited')).status, 503);
  t.is((await call('PATCH', `/monitors/${visibleId}/alarm`, { action: 'status' }, 'viewer')).status, 403);
});

test('state: start/stop/restart validated and checked, then 503', async (t) => {
  const res = await call('PATCH', `/monitors/${visibleId}/state`, { state: 'restart' });
  t.is(res.status, 503);
  t.is(res.body.kind, 'SERVICE_UNAVAILABLE_ERROR');
  t.is((await call('PATCH', `/monitors/${visibleId}/state`, { action: 'stop' })).status, 503);
  t.is((await call('PATCH', `/monitors/${visibleId}/state`, {})).status, 400);
  t.is((await call('PATCH', `/monitors/${visibleId}/state`, { state: 'jump' })).status, 400);
  t.is((await call('PATCH', `/monitors/${hiddenId}/state`, { state: 'start' }, 'limited')).status, 404);
  t.is((await call('PATCH', `/monitors/${visibleId}/state`, { state: 'start' }, 'viewer')).status, 403);
});

test('monitor-status: ACL-filtered list, decimal strings, UTC timestamps, heartbeat PATCH', async (t) => {
  await q(
    'INSERT INTO Monitor_Status (MonitorId, Status, CaptureFPS, AnalysisFPS, CaptureBandwidth, UpdatedOn) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)',
    [
      visibleId,
      'Connected',
      25,
      5,
      123456,
      '2026-11-22 08:53:58',
      hiddenId,
      'Running',
      10,
      0,
      1,
      '2026-11-22 08:53:58',
    ],
  );
  const list = await call('GET', '/monitor-status?page_size=1000', undefined, 'limited');
  t.is(list.status, 200);
  const mine = list.body.items.find((s: any) => s.monitor_id === visibleId);
  t.deepEqual(mine, {
    monitor_id: visibleId,
    status: 'Connected',
    capture_fps: '25.00',
    analysis_fps: '5.00',
    capture_bandwidth: 123456,
    updated_on: '2026-11-22T08:53:58Z',
  });
  t.false(
    list.body.items.some((s: any) => s.monitor_id === hiddenId),
    'hidden monitor filtered',
  );
  t.is(list.body.total, list.body.items.length);
  const everything = (await call('GET', '/monitor-status?page_size=1000')).body.items.map((s: any) => s.monitor_id);
  t.true(everything.includes(hiddenId) && everything.includes(visibleId), 'unrestricted admin sees both');
  t.deepEqual((await call('GET', `/monitor-status/${visibleId}`, undefined, 'limited')).body, mine);
  const hidden = await call('GET', `/monitor-status/${hiddenId}`, undefined, 'limited');
  t.is(hidden.status, 404);
  t.is(hidden.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  const noRow = await call('GET', `/monitor-status/${viewOnlyId}`);
  t.is(noRow.status, 404);
  t.is(noRow.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  t.is((await call('GET', '/monitor-status/999999')).body.kind, 'MONITOR_NOT_FOUND_ERROR');

  const beat = await call('PATCH', `/monitor-status/${viewOnlyId}`, {
    capture_fps: '12.5',
    analysis_fps: '3',
    status: 'Running',
  });
  t.is(beat.status, 200, JSON.stringify(beat.body));
  t.like(beat.body, {
    monitor_id: viewOnlyId,
    status: 'Running',
    capture_fps: '12.50',
    analysis_fps: '3.00',
    capture_bandwidth: 0,
  });
  t.regex(beat.body.updated_on, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const again = await call('PATCH', `/monitor-status/${viewOnlyId}`, {
    capture_fps: '1',
    analysis_fps: '1',
    capture_bandwidth: 9,
  });
  t.like(again.body, { status: 'Running', capture_fps: '1.00', capture_bandwidth: 9 }, 'status kept when omitted');
  const bad = await call('PATCH', `/monitor-status/${viewOnlyId}`, { capture_fps: 'fast', analysis_fps: '1000' });
  t.is(bad.status, 400);
  t.regex(detailNames(bad.body), /capture_fps/);
  t.regex(detailNames(bad.body), /analysis_fps/);
  t.is(
    (await call('PATCH', `/monitor-status/${viewOnlyId}`, { capture_fps: '1', analysis_fps: '1' }, 'limited')).status,
    403,
  );
  t.is(
    (await call('PATCH', `/monitor-status/${hiddenId}`, { capture_fps: '1', analysis_fps: '1' }, 'limited')).status,
    404,
  );
  t.is(
    (await call('PATCH', `/monitor-status/${visibleId}`, { capture_fps: '1', analysis_fps: '1' }, 'viewer')).status,
    403,
  );
  t.is((await call('GET', '/monitor-status?page_size=1001')).status, 400);
});
