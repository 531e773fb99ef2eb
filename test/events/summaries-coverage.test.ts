// Event summaries (list, by monitor, 404, zeros, ACL) and the coverage check of the event
// families against the v3 reference surface.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventSummariesService } from '../../src/features/events/event-summaries-service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  caller,
  insertEventUsers,
  insertMonitor,
  login,
  prismaFor,
  someUser,
  sql,
  stubAcl,
} from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: ReturnType<typeof caller>;
let nobody: string;

test.before(async () => {
  db = await zmDatabase('summaries');
  await insertEventUsers(db);
  for (const id of [1, 2, 3]) await insertMonitor(db, id);
  await insertMonitor(db, 4, 'Gone', { Deleted: 1 });
  await sql(
    db,
    `INSERT INTO Event_Summaries (MonitorId, TotalEvents, TotalEventDiskSpace, HourEvents, HourEventDiskSpace, DayEvents, DayEventDiskSpace,
       WeekEvents, WeekEventDiskSpace, MonthEvents, MonthEventDiskSpace, ArchivedEvents, ArchivedEventDiskSpace)
     VALUES (1, 10, 10000, 1, 100, 2, 200, 3, 300, 4, 400, 5, 500), (2, 7, NULL, NULL, NULL, 1, 50, 1, 50, 1, 50, 0, 0), (4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0)`,
  );
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'evview'));
  nobody = await login(app, 'evnone');
});
test.after.always(async () => app?.close());

test('list: every monitor in order, NULL counters as 0, a monitor without a row as zeros, soft-deleted left out', async (t) => {
  const res = await call('GET', '/event-summaries');
  t.is(res.status, 200);
  t.like(res.body, { total: 3, per_page: 25, current_page: 1, last_page: 1 });
  t.deepEqual(res.body.items[0], {
    monitor_id: 1,
    total_events: 10,
    total_event_disk_space: 10000,
    hour_events: 1,
    hour_event_disk_space: 100,
    day_events: 2,
    day_event_disk_space: 200,
    week_events: 3,
    week_event_disk_space: 300,
    month_events: 4,
    month_event_disk_space: 400,
    archived_events: 5,
    archived_event_disk_space: 500,
  });
  t.like(res.body.items[1], {
    monitor_id: 2,
    total_events: 7,
    total_event_disk_space: 0,
    hour_events: 0,
    day_events: 1,
  });
  t.like(res.body.items[2], { monitor_id: 3, total_events: 0, month_event_disk_space: 0 });
  t.deepEqual(
    res.body.items.map((s: any) => s.monitor_id),
    [1, 2, 3],
  );
});

test('list paging', async (t) => {
  const p2 = await call('GET', '/event-summaries?page=2&page_size=2');
  t.like(p2.body, { total: 3, per_page: 2, current_page: 2, last_page: 2 });
  t.deepEqual(
    p2.body.items.map((s: any) => s.monitor_id),
    [3],
  );
  t.is((await call('GET', '/event-summaries?page_size=1001')).status, 400);
  t.is((await call('GET', '/event-summaries?page_size=1000')).status, 200);
  t.is((await call('GET', '/event-summaries?per_page=1')).body.per_page, 25);
});

test('by monitor: the summary, zeros without a row, 404 MONITOR_NOT_FOUND for a missing or deleted monitor', async (t) => {
  t.like((await call('GET', '/event-summaries/1')).body, {
    monitor_id: 1,
    total_events: 10,
    archived_event_disk_space: 500,
  });
  t.like((await call('GET', '/event-summaries/3')).body, { monitor_id: 3, total_events: 0 });
  for (const id of [99, 4]) {
    const res = await call('GET', `/event-summaries/${id}`);
    t.is(res.status, 404, String(id));
    t.is(res.body.kind, 'EVENT_SUMMARY_NOT_FOUND_ERROR');
    t.is(res.body.code, 7);
  }
  t.is((await call('GET', '/event-summaries/abc')).status, 400);
  t.is((await call('GET', '/event-summaries/-1')).status, 400);
});

test('permissions: Events feature; None gets 403', async (t) => {
  t.is((await call('GET', '/event-summaries', undefined, nobody)).status, 403);
  t.is((await call('GET', '/event-summaries/1', undefined, nobody)).status, 403);
});

test('row ACL: only visible monitors are listed; a hidden one is a 404', async (t) => {
  const prisma = prismaFor(db);
  try {
    const limited = new EventSummariesService(prisma, stubAcl([2, 3]));
    const page = await limited.list(someUser);
    t.deepEqual(
      page.items.map((s) => s.monitor_id),
      [2, 3],
    );
    t.is(page.total, 2);
    t.like(await t.throwsAsync(limited.get(someUser, 1)), { status: 404, kind: 'EVENT_SUMMARY_NOT_FOUND_ERROR' });
    t.is((await limited.get(someUser, 2)).total_events, 7);
    t.like(await new EventSummariesService(prisma, stubAcl([])).list(someUser), { items: [], total: 0 });
  } finally {
    await prisma.$disconnect();
  }
});

// Coverage: every reference operation of the event families is served with the same method,
// path and operationId, declares the Events policy, and accepts every reference query parameter.
const FAMILY =
  /^\/api\/v3\/(events(\/\{id\}|\/counts\/\{hours\}|\/counts-by-monitor\/\{hours\})?|frames(\/\{id\})?|event-data(\/\{id\})?|event-summaries(\/\{monitor_id\})?)$/;

test('coverage: the events, frames, event-data and event-summaries operations of the reference surface', async (t) => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const surface = JSON.parse(
    readFileSync(path.join(here, '..', '..', 'data', 'contract', 'v3-reference-surface.json'), 'utf8'),
  );
  const reference = (
    surface.operations as Array<{ method: string; path: string; operationId: string; params: string[] }>
  ).filter((op) => FAMILY.test(op.path));
  t.is(reference.length, 19, 'events 7, frames 5, event-data 5, event-summaries 2');
  const served = await (await fetch(`${app.url}/api-docs/openapi.json`)).json();
  for (const ref of reference) {
    const op = served.paths[ref.path]?.[ref.method.toLowerCase()];
    if (!op) {
      t.fail(`${ref.method} ${ref.path} (${ref.operationId}) is not served`);
      continue;
    }
    t.is(op.operationId, ref.operationId, `${ref.method} ${ref.path}`);
    t.deepEqual(op.security, [{ jwt: ['events'] }], `${ref.operationId} is gated by Events`);
    const names = new Set((op.parameters ?? []).map((p: any) => `${p.in}:${p.name}`));
    for (const param of ref.params) {
      const [where, name] = param.split(':');
      t.true(names.has(`${where}:${name.replace(/\?$/, '')}`), `${ref.operationId} accepts ${where} ${name}`);
    }
  }
});
