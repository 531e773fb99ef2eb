// The push detectors on their own, against real data: the alarm detector on every shared-memory
// layout (1.36 to 1.39), and the event detector through a database outage (it pauses, then
// continues from the last id it saw: every start and end exactly once, none lost).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createPool } from '../../src/db/pool.js';
import { ZoneClock } from '../../src/db/zone-clock.js';
import { EventWatcher } from '../../src/features/push/event-watcher.js';
import type { AlarmMessage, EventMessage, MonitorStatusMessage } from '../../src/features/push/messages.js';
import { MonitorWatcher } from '../../src/features/push/monitor-watcher.js';
import { createLogger } from '../../src/log.js';
import { sharedMemoryPath } from '../../src/native/index.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import { dbConfigFor, type FreshDatabase } from '../helpers/mariadb.js';
import { type ShmFixtureSpec, writeShmFixture } from '../helpers/shm-fixture.js';
import { zmDatabase } from '../helpers/zmdb.js';

const log = createLogger({ level: 'fatal' });
let db: FreshDatabase;
let pool: ReturnType<typeof createPool>;
const mapDir = mkdtempSync(join(tmpdir(), 'zmgate-push-shm-'));

const LAYOUTS = [
  { id: 1, spec: { layout: 760, format: 'rgba' } },
  { id: 2, spec: { layout: 768, format: 'bgr24' } },
  { id: 3, spec: { layout: 872, variant: '1.38', format: 'rgb24' } },
  { id: 4, spec: { layout: 872, variant: '1.39', format: 'yuv420p' } },
  { id: 5, spec: { layout: 888, format: 'rgb24' } },
] as const;

test.before(async () => {
  db = await zmDatabase('push_detect');
  for (const { id } of LAYOUTS) await insertMonitor(db, id);
  pool = createPool(dbConfigFor(db));
});

test.after.always(async () => {
  await pool?.end();
  rmSync(mapDir, { recursive: true, force: true });
});

function writeState(
  id: number,
  spec: Pick<ShmFixtureSpec, 'layout' | 'format'> & { variant?: '1.38' | '1.39' },
  fields: Record<string, number | string>,
) {
  const now = Math.floor(Date.now() / 1000);
  writeShmFixture(sharedMemoryPath(mapDir, id), {
    width: 64,
    height: 48,
    imageBufferCount: 3,
    images: [{ slot: 1, timestampUs: Date.now() * 1000 }],
    ...spec,
    fields: { heartbeat_time: now, startup_time: now - 60, ...fields },
  });
}

test('alarm start and end with score and cause are read from every shared-memory layout', async (t) => {
  const got: Array<AlarmMessage | MonitorStatusMessage> = [];
  const watcher = new MonitorWatcher({
    db: pool,
    mapDir,
    log,
    alarmPollMs: 1000,
    statusPollSecs: 60,
    fpsThreshold: 1,
    publish: (m) => got.push(m),
  });
  t.teardown(() => watcher.stop());
  for (const { id, spec } of LAYOUTS) writeState(id, spec, { state: 1 });
  await watcher.refresh(); // monitor list, then a first scan: the baseline, nothing reported
  t.deepEqual([...watcher.ids].sort(), [1, 2, 3, 4, 5]);
  t.deepEqual(got, []);
  for (const { id } of LAYOUTS) t.like(watcher.statusOf(id), { capturing: true, heartbeat_stale: false });

  for (const { id, spec } of LAYOUTS)
    writeState(id, spec, { state: 3, last_frame_score: 40 + id, alarm_cause: `Motion: zone ${id}` });
  watcher.scan();
  for (const { id, spec } of LAYOUTS) {
    const start = got.find((m) => m.type === 'alarm' && m.monitor_id === id) as AlarmMessage | undefined;
    t.like(
      start,
      { phase: 'start', state: 'Alarm', score: 40 + id, cause: `Motion: zone ${id}` },
      `layout ${spec.layout}`,
    );
  }
  got.length = 0;
  watcher.scan();
  t.deepEqual(got, [], 'no repeat while the state holds');

  // Alert (post-alarm) is still the alarm; Idle ends it.
  for (const { id, spec } of LAYOUTS) writeState(id, spec, { state: 4 });
  watcher.scan();
  t.deepEqual(got, []);
  for (const { id, spec } of LAYOUTS) writeState(id, spec, { state: 1 });
  watcher.scan();
  t.deepEqual(
    got.filter((m) => m.type === 'alarm').map((m) => [m.monitor_id, (m as AlarmMessage).phase]),
    LAYOUTS.map(({ id }) => [id, 'end']),
  );

  // A stale heartbeat and a vanished zmc are monitor_status changes.
  got.length = 0;
  writeState(5, LAYOUTS[4].spec, { state: 1, heartbeat_time: Math.floor(Date.now() / 1000) - 120 });
  rmSync(sharedMemoryPath(mapDir, 4));
  watcher.scan();
  t.like(
    got.find((m) => m.monitor_id === 5),
    { type: 'monitor_status', capturing: false, heartbeat_stale: true },
  );
  t.like(
    got.find((m) => m.monitor_id === 4),
    { type: 'monitor_status', capturing: false, heartbeat_stale: false },
  );
});

test('the event detector pauses during a database outage and resumes without duplicates or gaps', async (t) => {
  let down = false;
  const flaky = {
    query: (q: string, v?: unknown[]) => (down ? Promise.reject(new Error('connection refused')) : pool.query(q, v)),
  };
  const got: EventMessage[] = [];
  const watcher = new EventWatcher({
    db: flaky,
    clock: async () => new ZoneClock('UTC'),
    log,
    periodMs: 1000,
    publish: (m) => got.push(m),
  });
  const before = await insertEvent(db, { monitorId: 1, end: null }); // open before start: only its end is news
  await watcher.poll();
  const a = await insertEvent(db, { monitorId: 1, name: 'New Event', start: '2026-06-01 10:00:00', end: null });
  await watcher.poll();
  t.deepEqual(
    got.map((m) => [m.type, m.event.id]),
    [['event_start', a]],
  );
  t.like(got[0]!.event, { start_date_time: '2026-06-01T10:00:00Z', end_date_time: null });

  down = true;
  await t.throwsAsync(() => watcher.poll());
  const b = await insertEvent(db, { monitorId: 2, end: null });
  await sql(db, "UPDATE Events SET EndDateTime = '2026-06-01 10:00:20' WHERE Id IN (?, ?)", [a, before]);
  const c = await insertEvent(db, { monitorId: 3 }); // opened and closed while the detector was blind
  await t.throwsAsync(() => watcher.poll());
  down = false;
  await watcher.poll();
  await watcher.poll();
  t.deepEqual(
    got.map((m) => [m.type, m.event.id]),
    [
      ['event_start', a],
      ['event_end', before],
      ['event_end', a],
      ['event_start', b],
      ['event_start', c],
      ['event_end', c],
    ],
  );
  t.is(got.find((m) => m.type === 'event_end' && m.event.id === a)!.event.end_date_time, '2026-06-01T10:00:20Z');
  t.is(watcher.lastId, c);
});
