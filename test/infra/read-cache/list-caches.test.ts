// The read caches of the polled lists (GET /monitors, GET /events and its total), end to end:
// writes through the API show in the very next read; writes by another database connection
// (as ZoneMinder's daemons and UI make them) show within the stated bound; a restricted user
// never gets a row outside their scope, whoever filled the cache.
import test from 'ava';
import { EVENTS_MAX_AGE_MS, MONITORS_MAX_AGE_MS } from '../../../src/infra/read-cache/read-caches.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { caller, insertEvent, insertMonitor, sql } from '../../helpers/events.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { addUser, login } from '../../helpers/rest.js';
import { zmDatabase } from '../../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let admin: ReturnType<typeof caller>;
let viewer: ReturnType<typeof caller>;
let adminToken: string;

test.before(async () => {
  db = await zmDatabase('rcache');
  for (const id of [1, 2, 3]) await insertMonitor(db, id);
  await addUser(db, 'rcadmin', { Monitors: 'Edit', Events: 'Edit' });
  const viewerId = await addUser(db, 'rcviewer', { Monitors: 'View', Events: 'View' });
  // The viewer may not see monitor 2.
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [viewerId]);
  for (let i = 0; i < 6; i++)
    await insertEvent(db, {
      monitorId: 1 + (i % 3),
      name: `E${i}`,
      start: `2026-01-10 0${i}:00:00`,
      end: `2026-01-10 0${i}:00:30`,
    });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  adminToken = await login(app, 'rcadmin');
  admin = caller(app, adminToken);
  viewer = caller(app, await login(app, 'rcviewer'));
});
test.after.always(async () => app?.close());

/** Polls `read` until `done` holds, for at most `boundMs` plus a margin for a busy machine. */
async function within<T>(
  boundMs: number,
  read: () => Promise<T>,
  done: (v: T) => boolean,
): Promise<{ value: T; seen: boolean }> {
  const deadline = Date.now() + boundMs + 1500;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return { value, seen: done(value) };
}

const monitorNames = async (who = admin) => {
  const res = await who('GET', '/monitors?page_size=100');
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return new Map<number, string>(res.body.items.map((m: any) => [m.id, m.name]));
};
const events = async (query = '', who = admin, pageSize = 2) => {
  const res = await who('GET', `/events?page_size=${pageSize}${query}`);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body as {
    items: Array<{ id: number; monitor_id: number }>;
    total: number;
    last_page: number;
    per_page: number;
  };
};

test.serial('a monitor changed through the API is in the very next list', async (t) => {
  t.is((await monitorNames()).get(1), 'Cam 1'); // fills the cache
  const patched = await admin('PATCH', '/monitors/1', { name: 'Renamed via API' });
  t.is(patched.status, 200, patched.text);
  t.is((await monitorNames()).get(1), 'Renamed via API');
  t.is((await monitorNames(viewer)).get(1), 'Renamed via API');
});

test.serial(`a monitor changed by another connection is in the list within ${MONITORS_MAX_AGE_MS} ms`, async (t) => {
  await monitorNames();
  await sql(db, "UPDATE Monitors SET Name = 'Renamed by ZoneMinder' WHERE Id = 3");
  const { seen } = await within(MONITORS_MAX_AGE_MS, monitorNames, (m) => m.get(3) === 'Renamed by ZoneMinder');
  t.true(seen);
  await insertMonitor(db, 4);
  t.true((await within(MONITORS_MAX_AGE_MS, monitorNames, (m) => m.has(4))).seen, 'a new monitor too');
  await sql(db, 'DELETE FROM Monitors WHERE Id = 4');
  t.true((await within(MONITORS_MAX_AGE_MS, monitorNames, (m) => !m.has(4))).seen, 'and a deleted one goes');
});

test.serial(
  `events inserted and deleted by another connection change total and last_page within ${EVENTS_MAX_AGE_MS} ms`,
  async (t) => {
    const before = await events();
    t.is(before.total, 6);
    t.is(before.last_page, 3);
    // Filtered totals are cached the same way (their own keys): read them before the write too.
    const range = '&start_time=2026-01-10T12:00:00';
    const monitorBefore = (await events('&monitor_id=1')).total;
    const rangeBefore = (await events(range)).total;
    const id = await insertEvent(db, {
      monitorId: 1,
      name: 'by zmc',
      start: '2026-01-11 00:00:00',
      end: '2026-01-11 00:00:10',
    });
    const added = await within(
      EVENTS_MAX_AGE_MS,
      () => events(),
      (p) => p.total === 7,
    );
    t.true(added.seen);
    t.is(added.value.last_page, 4, 'last_page agrees with the total');
    t.is(added.value.items[0].id, id, 'the page is as fresh as its total');
    const perMonitor = await within(
      EVENTS_MAX_AGE_MS,
      () => events('&monitor_id=1'),
      (p) => p.total === monitorBefore + 1,
    );
    t.true(perMonitor.seen);
    t.is(monitorBefore, 2);
    const inRange = await within(
      EVENTS_MAX_AGE_MS,
      () => events(range),
      (p) => p.total === rangeBefore + 1,
    );
    t.true(inRange.seen, 'a time-range total');
    await sql(db, 'DELETE FROM Events WHERE Id = ?', [id]);
    const removed = await within(
      EVENTS_MAX_AGE_MS,
      () => events(),
      (p) => p.total === 6,
    );
    t.true(removed.seen);
    t.is(removed.value.last_page, 3);
    t.false(removed.value.items.some((e) => e.id === id));
    const monitorAfter = await within(
      EVENTS_MAX_AGE_MS,
      () => events('&monitor_id=1'),
      (p) => p.total === monitorBefore,
    );
    t.true(monitorAfter.seen, 'the per-monitor total after the delete');
  },
);

test.serial('events changed through the API change the list and its total at once', async (t) => {
  const before = await events();
  const archivedBefore = (await events('&archived=true')).total;
  const created = await admin('POST', '/events', {
    monitor_id: 3,
    storage_id: 0,
    name: 'via API',
    width: 640,
    height: 480,
    length: '5.00',
    orientation: 'ROTATE_0',
  });
  t.is(created.status, 201, created.text);
  const after = await events();
  t.is(after.total, before.total + 1);
  t.is(after.items[0].id, created.body.id);
  const archived = await admin('PATCH', `/events/${created.body.id}`, { archived: true });
  t.is(archived.status, 200, archived.text);
  t.is((await events('&archived=true')).total, archivedBefore + 1);
  await sql(db, 'DELETE FROM Events WHERE Id = ?', [created.body.id]);
});

test.serial('a restricted user never gets a row outside their scope from a cache another user filled', async (t) => {
  // The admin fills every cache first, with the same URLs the viewer then asks.
  const all = await monitorNames();
  t.true(all.has(2));
  const adminEvents = await events('', admin, 100);
  t.true(adminEvents.items.some((e) => e.monitor_id === 2));
  for (const id of [1, 2, 3]) await events(`&monitor_id=${id}`);

  const seen = await monitorNames(viewer);
  t.false(seen.has(2));
  t.deepEqual(
    [...seen.keys()],
    [...all.keys()].filter((id) => id !== 2),
  );
  const viewerEvents = await events('', viewer, 100);
  t.true(viewerEvents.items.length > 0);
  t.false(viewerEvents.items.some((e) => e.monitor_id === 2));
  t.is(viewerEvents.total, adminEvents.items.filter((e) => e.monitor_id !== 2).length);
  const hidden = await events('&monitor_id=2', viewer);
  t.deepEqual(hidden.items, []);
  t.is(hidden.total, 0);
  t.is((await viewer('GET', '/monitors/2')).status, 404);
});

test.serial('a cached answer is sent as the same bytes and headers res.json() gives', async (t) => {
  for (const path of ['/monitors?page_size=100', '/events?page_size=3']) {
    const first = await admin('GET', path);
    const again = await admin('GET', path);
    t.is(again.text, first.text, path);
    t.is(first.text, JSON.stringify(first.body), 'compact JSON, as JSON.stringify writes it');
    const one = await admin('GET', path.startsWith('/monitors') ? '/monitors/1' : `/events/${first.body.items[0].id}`);
    for (const header of ['content-type', 'cache-control', 'vary']) {
      t.is(first.headers.get(header), one.headers.get(header), `${path} ${header} as an uncached answer's`);
    }
    t.is(first.headers.get('content-type'), 'application/json; charset=utf-8');
  }
  // Uncompressed (fetch asks for gzip by default): the exact length of the cached bytes.
  const res = await fetch(app.api('/monitors?page_size=100'), {
    headers: { authorization: `Bearer ${adminToken}`, 'accept-encoding': 'identity' },
  });
  const text = await res.text();
  t.is(res.headers.get('content-encoding'), null);
  t.is(res.headers.get('content-length'), String(Buffer.byteLength(text)));
  t.is(JSON.parse(text).total, (await monitorNames()).size);
});
