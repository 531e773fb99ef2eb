// PTZ against fake zmcontrol.pl sockets: each route sends the right command with speeds mapped
// into the profile's ranges; unsupported capabilities are 400 naming them; an absent or stale
// socket is 503; the Control gate and the monitor row ACL apply. Serial: the fakes record
// messages per monitor, so tests must not interleave.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startAppWithAcl, type AclApp } from '../helpers/acl-app.js';
import { startFakeZmControl, type FakeZmControl } from '../helpers/fake-zmcontrol.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let db: FreshDatabase;
let app: TestApp;
let aclApp: AclApp;
let call: Call;
let viewer: Call;
let systemOnly: Call;
let restricted: Call;
const socks = mkdtempSync(join(tmpdir(), 'zmgate-socks-'));
const fakes = new Map<number, FakeZmControl>();
const m: Record<string, number> = {};
const controls: Record<string, number> = {};

const FULL = {
  Name: 'Full',
  Type: 'Ffmpeg',
  Protocol: 'ONVIF',
  CanWake: 1,
  CanSleep: 1,
  CanReset: 1,
  CanReboot: 1,
  CanZoom: 1,
  CanZoomCon: 1,
  CanZoomRel: 1,
  HasZoomSpeed: 1,
  MinZoomSpeed: 1,
  MaxZoomSpeed: 7,
  MinZoomStep: 1,
  MaxZoomStep: 5,
  CanFocus: 1,
  CanAutoFocus: 1,
  CanFocusCon: 1,
  HasFocusSpeed: 1,
  MinFocusSpeed: 1,
  MaxFocusSpeed: 3,
  CanIris: 1,
  CanAutoIris: 1,
  CanIrisCon: 1,
  HasPresets: 1,
  NumPresets: 10,
  HasHomePreset: 1,
  CanSetPresets: 1,
  CanMove: 1,
  CanMoveDiag: 1,
  CanMoveMap: 1,
  CanMoveRel: 1,
  CanMoveCon: 1,
  CanPan: 1,
  MinPanRange: -180,
  MaxPanRange: 180,
  MinPanStep: 1,
  MaxPanStep: 10,
  HasPanSpeed: 1,
  MinPanSpeed: 0,
  MaxPanSpeed: 63,
  HasTurboPan: 1,
  TurboPanSpeed: 100,
  CanTilt: 1,
  MinTiltStep: 1,
  MaxTiltStep: 10,
  HasTiltSpeed: 1,
  MinTiltSpeed: 0,
  MaxTiltSpeed: 63,
  CanAutoScan: 1,
  NumScanPaths: 2,
};
const PAN_ONLY = { Name: 'PanOnly', Type: 'Remote', Protocol: 'PelcoD', CanMove: 1, CanMoveCon: 1, CanPan: 1 };
const STEPS = {
  Name: 'Steps',
  Type: 'Remote',
  Protocol: 'AxisV2',
  CanMove: 1,
  CanMoveRel: 1,
  CanPan: 1,
  CanTilt: 1,
  MinPanStep: 2,
  MaxPanStep: 8,
  MinTiltStep: 2,
  MaxTiltStep: 8,
  CanZoom: 1,
  CanZoomRel: 1,
  MinZoomStep: 1,
  MaxZoomStep: 3,
  CanIris: 1,
  CanIrisAbs: 1,
};

async function insert(table: string, row: Record<string, unknown>): Promise<number> {
  const cols = Object.keys(row);
  await db.db.query(
    `INSERT INTO ${table} (${cols.map((c) => `\`${c}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    Object.values(row),
    db.name,
  );
  // query() returns no OkPacket and each call has its own connection: read the newest id back.
  const [last] = await db.db.query<{ Id: number }>(`SELECT MAX(Id) AS Id FROM ${table}`, [], db.name);
  return Number(last.Id);
}

test.before(async () => {
  db = await zmDatabase('ptz');
  controls.full = await insert('Controls', FULL);
  controls.panOnly = await insert('Controls', PAN_ONLY);
  controls.steps = await insert('Controls', STEPS);
  await insert('Controls', { Name: 'Same protocol', Type: 'Remote', Protocol: 'PelcoD' });
  m.full = await insert('Monitors', { Name: 'full', Controllable: 1, ControlId: controls.full });
  m.panOnly = await insert('Monitors', { Name: 'pan only', Controllable: 1, ControlId: controls.panOnly });
  m.notPtz = await insert('Monitors', { Name: 'not ptz', Controllable: 0, ControlId: controls.full });
  m.steps = await insert('Monitors', { Name: 'steps', Controllable: 1, ControlId: controls.steps });
  m.absent = await insert('Monitors', { Name: 'no daemon', Controllable: 1, ControlId: controls.full });
  m.stale = await insert('Monitors', { Name: 'stale socket', Controllable: 1, ControlId: controls.full });
  m.autoStop = await insert('Monitors', {
    Name: 'autostop',
    Controllable: 1,
    ControlId: controls.full,
    AutoStopTimeout: 1.5,
  });
  m.noProfile = await insert('Monitors', { Name: 'lost profile', Controllable: 1, ControlId: 99999 });
  for (const id of [m.full, m.panOnly, m.steps, m.autoStop]) fakes.set(id, await startFakeZmControl(socks, id));
  // A socket path that is not a listening socket: connect() is refused, like a dead daemon's leftover.
  writeFileSync(join(socks, `zmcontrol-${m.stale}.sock`), '');
  await addUser(db, 'ptz', { Control: 'Edit' });
  await addUser(db, 'ptzview', { Control: 'View' });
  await addUser(db, 'sysonly', { System: 'Edit' });
  await addUser(db, 'limited', { Control: 'Edit' });
  const env = { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__PATH_SOCKS: socks };
  app = await startTestApp({ db, env });
  call = caller(app, await login(app, 'ptz'));
  viewer = caller(app, await login(app, 'ptzview'));
  systemOnly = caller(app, await login(app, 'sysonly'));
  // full editable, steps view-only, pan-only hidden.
  aclApp = await startAppWithAcl(
    db,
    { scope: async () => ({ visible: new Set([m.full, m.steps]), editable: new Set([m.full]) }) },
    env,
  );
  restricted = caller(aclApp, await login(aclApp, 'limited'));
});

test.after.always(async () => {
  await app?.close();
  await aclApp?.close();
  for (const fake of fakes.values()) await fake.close();
});

/** POSTs (or DELETEs) a command on a monitor and returns the response and what the fake received. */
async function command(monitor: number, path: string, body?: unknown, method = 'POST', expected = 1) {
  const fake = fakes.get(monitor)!;
  fake.clear();
  const res = await call(method, `/ptz/monitors/${monitor}/${path}`, body);
  const sent = res.status === 200 ? await fake.waitFor(expected) : fake.messages.slice();
  return { res, sent };
}

// ---------------------------------------------------------------- reads

test.serial('protocols: every protocol of the control profiles, all through zmcontrol.pl', async (t) => {
  const res = await viewer('GET', '/ptz/protocols');
  t.is(res.status, 200);
  t.deepEqual(res.body.native_protocols, []);
  t.true(res.body.perl_fallback_enabled);
  t.deepEqual(
    res.body.protocols.map((p: any) => p.name),
    ['AxisV2', 'ONVIF', 'PelcoD'],
  );
  const pelco = res.body.protocols.find((p: any) => p.name === 'PelcoD');
  t.false(pelco.is_native);
  t.regex(pelco.description, /ZoneMinder::Control::PelcoD.*zmcontrol\.pl.*2 control profile/);
  t.is((await systemOnly('GET', '/ptz/protocols')).status, 403);
});

test.serial('capabilities: the Controls row in the reference shape', async (t) => {
  const res = await viewer('GET', `/ptz/monitors/${m.full}/capabilities`);
  t.is(res.status, 200);
  const c = res.body;
  t.is(c.control_id, controls.full);
  t.is(c.name, 'Full');
  t.is(c.protocol, 'ONVIF');
  t.like(c.pan_tilt, {
    can_move: true,
    can_move_con: true,
    can_move_abs: false,
    can_pan: true,
    can_tilt: true,
    can_move_diag: true,
  });
  t.deepEqual(c.pan_tilt.pan_range, { min: -180, max: 180 });
  t.deepEqual(c.pan_tilt.pan_speed, { has_speed: true, min: 0, max: 63 });
  t.deepEqual(c.pan_tilt.pan_turbo, { has_turbo: true, speed: 100 });
  t.deepEqual(c.pan_tilt.tilt_turbo, { has_turbo: false, speed: null });
  t.deepEqual(c.zoom, {
    can: true,
    can_abs: false,
    can_auto: false,
    can_con: true,
    can_rel: true,
    range: { min: null, max: null },
    speed: { has_speed: true, min: 1, max: 7 },
    step: { min: 1, max: 5 },
  });
  t.like(c.focus, { can: true, can_auto: true });
  t.like(c.gain, { can: false });
  t.deepEqual(c.presets, { can_set_presets: true, has_home_preset: true, has_presets: true, num_presets: 10 });
  t.deepEqual(c.power, { can_reboot: true, can_reset: true, can_sleep: true, can_wake: true });
  t.deepEqual(c.scan, { can_auto_scan: true, num_scan_paths: 2 });
});

test.serial(
  'capabilities: not controllable or no profile → 400 "no PTZ control configured"; unknown → 404',
  async (t) => {
    for (const id of [m.notPtz, m.noProfile]) {
      const res = await call('GET', `/ptz/monitors/${id}/capabilities`);
      t.is(res.status, 400, String(id));
      t.regex(res.body.error_message, /no PTZ control configured/);
      t.true(fields(res.body).includes('reason'));
    }
    const missing = await call('GET', '/ptz/monitors/424242/capabilities');
    t.is(missing.status, 404);
    t.is(missing.body.kind, 'MONITOR_NOT_FOUND_ERROR');
    t.is((await call('GET', '/ptz/monitors/abc/capabilities')).status, 400);
    t.is((await call('GET', '/ptz/monitors/-1/status')).status, 400);
    t.is((await call('POST', `/ptz/monitors/${m.notPtz}/move/up`, {})).status, 400);
  },
);

test.serial('status: available when zmcontrol.pl accepts connections; no position', async (t) => {
  const fake = fakes.get(m.full)!;
  fake.clear();
  const up = await viewer('GET', `/ptz/monitors/${m.full}/status`);
  t.is(up.status, 200);
  t.like(up.body, { available: true, is_native: false, monitor_id: m.full, position: null, protocol: 'ONVIF' });
  t.is(up.body.capabilities.control_id, controls.full);
  await fake.waitForProbes(1);
  t.is(fake.probes, 1);
  t.is(fake.messages.length, 0, 'a probe sends no command');
  for (const id of [m.absent, m.stale]) {
    const down = await viewer('GET', `/ptz/monitors/${id}/status`);
    t.is(down.status, 200);
    t.false(down.body.available);
  }
});

// ---------------------------------------------------------------- commands

test.serial('move: each direction sends moveCon<Dir> with the axes it uses', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['up', { command: 'moveConUp', tiltspeed: '32' }],
    ['down', { command: 'moveConDown', tiltspeed: '32' }],
    ['left', { command: 'moveConLeft', panspeed: '32' }],
    ['right', { command: 'moveConRight', panspeed: '32' }],
    ['up-left', { command: 'moveConUpLeft', panspeed: '32', tiltspeed: '32' }],
    ['up-right', { command: 'moveConUpRight', panspeed: '32', tiltspeed: '32' }],
    ['down-left', { command: 'moveConDownLeft', panspeed: '32', tiltspeed: '32' }],
    ['down-right', { command: 'moveConDownRight', panspeed: '32', tiltspeed: '32' }],
  ];
  for (const [dir, expected] of cases) {
    const { res, sent } = await command(m.full, `move/${dir}`, {});
    t.is(res.status, 200, dir);
    t.true(res.body.success);
    t.regex(res.body.message, new RegExp(String(expected.command)));
    t.deepEqual(sent, [expected], dir);
  }
});

test.serial(
  'move: speeds in the profile units; clamped; turbo above the maximum; no body at all is fine',
  async (t) => {
    t.deepEqual((await command(m.full, 'move/up-right', { pan_speed: 10, tilt_speed: 20 })).sent, [
      { command: 'moveConUpRight', panspeed: '10', tiltspeed: '20' },
    ]);
    // Pan has a turbo speed (100), tilt does not: above the maximum gives turbo / the maximum.
    t.deepEqual((await command(m.full, 'move/down-left', { pan_speed: 64, tilt_speed: 999 })).sent, [
      { command: 'moveConDownLeft', panspeed: '100', tiltspeed: '63' },
    ]);
    // A profile without speed control gets no speed option at all.
    t.deepEqual((await command(m.panOnly, 'move/left', { pan_speed: 50 })).sent, [{ command: 'moveConLeft' }]);
    // No body (clients POST without one) and a stray key.
    t.deepEqual((await command(m.full, 'move/left')).sent, [{ command: 'moveConLeft', panspeed: '32' }]);
    t.deepEqual((await command(m.full, 'move/left', { per_page: 3 })).sent, [
      { command: 'moveConLeft', panspeed: '32' },
    ]);
  },
);

test.serial('move: duration_ms sends the stop afterwards; AutoStopTimeout adds autostop', async (t) => {
  const { res, sent } = await command(m.full, 'move/up', { tilt_speed: 5, duration_ms: 50 }, 'POST', 2);
  t.is(res.status, 200);
  t.regex(res.body.message, /moveStop in 50 ms/);
  t.deepEqual(sent, [{ command: 'moveConUp', tiltspeed: '5' }, { command: 'moveStop' }]);
  t.deepEqual((await command(m.autoStop, 'move/right', { pan_speed: 3 })).sent, [
    { command: 'moveConRight', panspeed: '3', autostop: 1 },
  ]);
  // A timed move carries no autostop: its own stop ends it.
  const timed = await command(m.autoStop, 'zoom/in', { speed: 2, duration_ms: 20 }, 'POST', 2);
  t.deepEqual(timed.sent, [{ command: 'zoomConTele', speed: '2' }, { command: 'zoomStop' }]);
});

test.serial('stop, zoom, focus, iris, power and home send ZoneMinder command names', async (t) => {
  const cases: Array<[string, unknown, Record<string, unknown>]> = [
    ['move/stop', {}, { command: 'moveStop' }],
    ['zoom/in', { speed: 6 }, { command: 'zoomConTele', speed: '6' }],
    ['zoom/out', {}, { command: 'zoomConWide', speed: '4' }],
    ['zoom/stop', undefined, { command: 'zoomStop' }],
    ['focus/near', { speed: 0 }, { command: 'focusConNear', speed: '1' }],
    ['focus/far', { speed: 3 }, { command: 'focusConFar', speed: '3' }],
    ['focus/auto', {}, { command: 'focusAuto' }],
    ['focus/stop', {}, { command: 'focusStop' }],
    ['iris/open', {}, { command: 'irisConOpen' }],
    ['iris/close', {}, { command: 'irisConClose' }],
    ['iris/auto', {}, { command: 'irisAuto' }],
    ['iris/stop', {}, { command: 'irisStop' }],
    ['power/wake', {}, { command: 'wake' }],
    ['power/sleep', {}, { command: 'sleep' }],
    ['power/reset', {}, { command: 'reset' }],
    ['power/reboot', {}, { command: 'reboot' }],
    ['home', {}, { command: 'presetHome' }],
  ];
  for (const [path, body, expected] of cases) {
    const { res, sent } = await command(m.full, path, body);
    t.is(res.status, 200, path);
    t.deepEqual(sent, [expected], path);
  }
});

test.serial('a step-only profile gets moveRel/zoomRel/irisAbs with steps', async (t) => {
  t.deepEqual((await command(m.steps, 'move/up', { tilt_speed: 9 })).sent, [{ command: 'moveRelUp', tiltstep: '5' }]);
  t.deepEqual((await command(m.steps, 'zoom/in', { duration_ms: 10 })).sent, [{ command: 'zoomRelTele', step: '2' }]);
  t.deepEqual((await command(m.steps, 'iris/close', {})).sent, [{ command: 'irisAbsClose', step: '1' }]);
});

test.serial('relative: moveRel<Dir> with clamped steps, then zoomRel', async (t) => {
  const { res, sent } = await command(
    m.full,
    'relative',
    { pan_delta: -3.4, tilt_delta: 40, zoom_delta: 2 },
    'POST',
    2,
  );
  t.is(res.status, 200);
  t.deepEqual(sent, [
    { command: 'moveRelUpLeft', panstep: '3', panspeed: '32', tiltstep: '10', tiltspeed: '32' },
    { command: 'zoomRelTele', step: '2' },
  ]);
  t.deepEqual((await command(m.steps, 'relative', { pan_delta: 1 })).sent, [{ command: 'moveRelRight', panstep: '2' }]);
  t.deepEqual((await command(m.full, 'relative', { zoom_delta: -1 })).sent, [{ command: 'zoomRelWide', step: '1' }]);
  const nothing = await call('POST', `/ptz/monitors/${m.full}/relative`, { pan_delta: 0.2 });
  t.is(nothing.status, 400);
  t.deepEqual(fields(nothing.body), ['pan_delta', 'tilt_delta', 'zoom_delta']);
});

test.serial('absolute: moveMap with the coordinates; zoom and half positions are refused', async (t) => {
  t.deepEqual((await command(m.full, 'absolute', { pan: 0.25, tilt: -0.5 })).sent, [
    { command: 'moveMap', xcoord: '0.25', ycoord: '-0.5' },
  ]);
  const zoom = await command(m.full, 'absolute', { pan: 1, tilt: 1, zoom: 0.5 });
  t.is(zoom.res.status, 400);
  t.deepEqual(fields(zoom.res.body), ['zoom']);
  t.deepEqual(zoom.sent, []);
  const half = await call('POST', `/ptz/monitors/${m.full}/absolute`, { pan: 1 });
  t.is(half.status, 400);
  t.deepEqual(fields(half.body), ['tilt']);
  const huge = await call('POST', `/ptz/monitors/${m.full}/absolute`, { pan: 1e9, tilt: 0 });
  t.is(huge.status, 400);
  t.true(fields(huge.body).some((f) => f.includes('pan')));
});

test.serial('presets: goto, set keeps the ControlPresets label in step, delete clears camera and label', async (t) => {
  const label = async (preset: number): Promise<string | undefined> =>
    (
      await db.db.query<{ Label: string }>(
        'SELECT Label FROM ControlPresets WHERE MonitorId = ? AND Preset = ?',
        [m.full, preset],
        db.name,
      )
    )[0]?.Label;
  t.deepEqual((await command(m.full, 'presets/3/goto', {})).sent, [{ command: 'presetGoto', preset: '3' }]);
  t.deepEqual((await command(m.full, 'presets/4/set', { name: 'Gate' })).sent, [{ command: 'presetSet', preset: '4' }]);
  t.is(await label(4), 'Gate');
  await command(m.full, 'presets/4/set', { name: 'Front gate' });
  t.is(await label(4), 'Front gate');
  await command(m.full, 'presets/4/set', {}); // no name: the label stays
  t.is(await label(4), 'Front gate');
  t.is((await call('GET', `/control_presets/${m.full}/4`)).body.label, 'Front gate');
  await command(m.full, 'presets/4/set', { name: '' }); // empty: removed, as the web UI does
  t.is(await label(4), undefined);
  await command(m.full, 'presets/5/set', { name: 'Drive' });
  const { res, sent } = await command(m.full, 'presets/5', undefined, 'DELETE');
  t.is(res.status, 200);
  t.true(res.body.success);
  t.deepEqual(sent, [{ command: 'presetClear', preset: '5' }]);
  t.is(await label(5), undefined);
  for (const preset of [0, 11]) {
    const out = await call('POST', `/ptz/monitors/${m.full}/presets/${preset}/goto`, {});
    t.is(out.status, 400, String(preset));
    t.deepEqual(fields(out.body), ['preset_id']);
  }
  const long = await call('POST', `/ptz/monitors/${m.full}/presets/2/set`, { name: 'x'.repeat(65) });
  t.is(long.status, 400);
  t.true(fields(long.body).some((f) => f.includes('name')));
});

// ---------------------------------------------------------------- refusals

test.serial('a move the camera cannot do → 400 naming the capability; nothing is sent', async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ['move/up', {}, 'can_tilt'],
    ['move/up-left', {}, 'can_tilt'],
    ['zoom/in', {}, 'can_zoom'],
    ['zoom/stop', {}, 'can_zoom'],
    ['focus/auto', {}, 'can_auto_focus'],
    ['iris/open', {}, 'can_iris'],
    ['power/wake', {}, 'can_wake'],
    ['home', {}, 'has_home_preset'],
    ['presets/1/goto', {}, 'has_presets'],
    ['presets/1/set', { name: 'x' }, 'can_set_presets'],
    ['relative', { tilt_delta: 1 }, 'can_move_rel'],
    ['absolute', { pan: 1, tilt: 1 }, 'can_move_map'],
  ];
  for (const [path, body, capability] of cases) {
    const { res, sent } = await command(m.panOnly, path, body);
    t.is(res.status, 400, path);
    t.is(res.body.kind, 'BAD_REQUEST_ERROR');
    t.deepEqual(res.body.details[0], ['capability', capability], path);
    t.deepEqual(sent, [], path);
  }
  const diag = await command(m.steps, 'move/down-left', {});
  t.deepEqual(diag.res.body.details[0], ['capability', 'can_move_diag']);
  t.is((await call('DELETE', `/ptz/monitors/${m.panOnly}/presets/1`)).status, 400);
});

test.serial('zmcontrol.pl not running → 503 naming it; a leftover socket file too', async (t) => {
  const absent = await call('POST', `/ptz/monitors/${m.absent}/move/up`, {});
  t.is(absent.status, 503);
  t.is(absent.body.kind, 'SERVICE_UNAVAILABLE_ERROR');
  t.regex(absent.body.error_message, /zmcontrol\.pl.*not running.*monitor \d+/);
  t.deepEqual(absent.body.details, [
    ['monitor_id', String(m.absent)],
    ['daemon', 'zmcontrol.pl'],
    ['reason', 'socket missing'],
  ]);
  t.false(absent.text.includes(socks), 'no filesystem path in the body');
  const stale = await call('POST', `/ptz/monitors/${m.stale}/presets/2/set`, { name: 'never stored' });
  t.is(stale.status, 503);
  t.deepEqual(stale.body.details[2], ['reason', 'connection refused']);
  const [row] = await db.db.query<any>(
    'SELECT COUNT(*) AS n FROM ControlPresets WHERE MonitorId = ?',
    [m.stale],
    db.name,
  );
  t.is(Number(row.n), 0, 'no label without the command');
});

test.serial('Control gate: View reads, Edit commands; other areas are refused', async (t) => {
  t.is((await viewer('GET', `/ptz/monitors/${m.full}/capabilities`)).status, 200);
  const move = await viewer('POST', `/ptz/monitors/${m.full}/move/up`, {});
  t.is(move.status, 403);
  t.is(move.body.kind, 'PERMISSION_DENIED_ERROR');
  t.is((await viewer('DELETE', `/ptz/monitors/${m.full}/presets/1`)).status, 403);
  t.is((await systemOnly('GET', `/ptz/monitors/${m.full}/status`)).status, 403);
  t.is((await systemOnly('POST', `/ptz/monitors/${m.full}/home`, {})).status, 403);
});

test.serial('row ACL: hidden monitor → 404 like a missing one; view-only → reads 200, commands 403', async (t) => {
  for (const [method, path] of [
    ['GET', 'capabilities'],
    ['GET', 'status'],
    ['POST', 'move/left'],
    ['DELETE', 'presets/1'],
  ]) {
    const res = await restricted(method, `/ptz/monitors/${m.panOnly}/${path}`, method === 'POST' ? {} : undefined);
    t.is(res.status, 404, path);
    t.is(res.body.kind, 'MONITOR_NOT_FOUND_ERROR');
  }
  t.is((await restricted('GET', `/ptz/monitors/${m.steps}/capabilities`)).status, 200);
  const viewOnly = await restricted('POST', `/ptz/monitors/${m.steps}/move/up`, {});
  t.is(viewOnly.status, 403);
  t.deepEqual(viewOnly.body.details, [['monitor_id', String(m.steps)]]);
  const fake = fakes.get(m.full)!;
  fake.clear();
  t.is((await restricted('POST', `/ptz/monitors/${m.full}/move/stop`, {})).status, 200);
  t.deepEqual(await fake.waitFor(1), [{ command: 'moveStop' }]);
});

test.serial('validation: speeds, durations and bodies are checked before anything is sent', async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ['move/up', { tilt_speed: -1 }, 'tilt_speed'],
    ['move/up', { tilt_speed: 1.5 }, 'tilt_speed'],
    ['move/left', { pan_speed: 'fast' }, 'pan_speed'],
    ['move/up', { duration_ms: 60001 }, 'duration_ms'],
    ['zoom/in', { speed: -2 }, 'speed'],
    ['focus/far', { duration_ms: -1 }, 'duration_ms'],
    ['relative', { pan_delta: 'x' }, 'pan_delta'],
  ];
  const fake = fakes.get(m.full)!;
  fake.clear();
  for (const [path, body, field] of cases) {
    const res = await call('POST', `/ptz/monitors/${m.full}/${path}`, body);
    t.is(res.status, 400, `${path} ${JSON.stringify(body)}`);
    t.true(
      fields(res.body).some((f) => f.includes(field)),
      `${field}: ${JSON.stringify(res.body.details)}`,
    );
  }
  await sleep(20);
  t.deepEqual(fake.messages, []);
});
