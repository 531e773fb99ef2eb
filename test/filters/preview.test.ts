// POST /api/v3/filters/preview: every operator on the fields it applies to, groups, relative
// times, sort and limit, paging limits, validation (unknown field/operator → 400 naming it),
// hostile values as plain data, and the row ACL.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { request } from '../helpers/http.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let restricted: Call;
let nobody: Call;
let editToken: string;
const e: Record<string, number> = {};

/** 'YYYY-MM-DD HH:MM:SS' of now + offset (ZM_TIMEZONE is UTC in this file). */
const wall = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().slice(0, 19).replace('T', ' ');

test.before(async () => {
  db = await zmDatabase('fpreview');
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')");
  await insertMonitor(db, 1, 'Front cam');
  await insertMonitor(db, 2, 'Garage cam');
  await insertMonitor(db, 3, 'Yard cam');
  e.front = await insertEvent(db, {
    monitorId: 1,
    name: 'Front door',
    cause: 'Motion',
    notes: 'Motion: Zone1 detected:person',
    start: '2026-01-10 08:00:00',
    end: '2026-01-10 08:01:00',
    length: '60.00',
    maxScore: 20,
    diskSpace: 1000,
  });
  e.back = await insertEvent(db, {
    monitorId: 1,
    name: 'Back yard',
    cause: 'Signal',
    notes: null,
    start: '2026-01-11 09:00:00',
    end: null,
    length: '0.00',
    frames: null,
    alarmFrames: null,
    maxScore: 5,
    archived: 1,
    diskSpace: null,
  });
  e.hostile = await insertEvent(db, {
    monitorId: 2,
    name: "O'Brien; DROP",
    cause: 'Forced Web',
    notes: '100% sure_thing',
    start: '2026-01-12 10:00:00',
    end: '2026-01-12 10:00:30',
    length: '30.50',
    maxScore: 90,
    diskSpace: 5000,
  });
  e.unicode = await insertEvent(db, {
    monitorId: 3,
    name: 'Café ☕',
    cause: 'Motion',
    notes: 'xzy ünïcödé',
    start: wall(-3_600_000),
    end: wall(-3_500_000),
    length: '100.00',
    maxScore: 50,
    diskSpace: 10,
  });
  await addUser(db, 'fview', { Events: 'View' });
  await addUser(db, 'fnone', { Events: 'None', System: 'Edit' });
  const limited = await addUser(db, 'flimited', { Events: 'View', Monitors: 'View' });
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [limited]);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  await addUser(db, 'fedit', { Events: 'Edit' });
  editToken = await login(app, 'fedit');
  call = caller(app, editToken);
  viewer = caller(app, await login(app, 'fview'));
  restricted = caller(app, await login(app, 'flimited'));
  nobody = caller(app, await login(app, 'fnone'));
});
test.after.always(async () => app?.close());

type Rule = { field: string; op: string; value?: unknown };
const all = (...rules: unknown[]) => ({ match: 'all', rules });
const any = (...rules: unknown[]) => ({ match: 'any', rules });
const r = (field: string, op: string, value?: unknown): Rule => ({ field, op, ...(value !== undefined && { value }) });

async function ids(where: unknown, extra: Record<string, unknown> = {}, as: Call = call): Promise<number[]> {
  const res = await as('POST', '/filters/preview?page_size=100', { where, ...extra });
  if (res.status !== 200) throw new Error(`${JSON.stringify(where)}: ${res.status} ${res.text}`);
  return res.body.items.map((x: any) => x.id);
}
const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

test('an empty root matches every event, newest first, as EventResponse items', async (t) => {
  const res = await call('POST', '/filters/preview', { where: all() });
  t.is(res.status, 200);
  t.deepEqual(
    res.body.items.map((x: any) => x.id),
    [e.unicode, e.hostile, e.back, e.front],
  );
  t.like(res.body, { total: 4, per_page: 25, current_page: 1, last_page: 1 });
  const front = res.body.items.find((x: any) => x.id === e.front);
  t.like(front, {
    monitor_id: 1,
    name: 'Front door',
    length: '60.00',
    start_date_time: '2026-01-10T08:00:00Z',
    disk_space: 1000,
  });
});

test('eq and ne on numbers, text and times', async (t) => {
  t.deepEqual(sorted(await ids(all(r('monitor_id', 'eq', 1)))), [e.front, e.back]);
  t.deepEqual(
    sorted(await ids(all(r('monitor_id', 'eq', '1')))),
    [e.front, e.back],
    'numbers may come as strings (ZoneMinder does)',
  );
  t.deepEqual(await ids(all(r('archived', 'eq', true))), [e.back]);
  t.deepEqual(await ids(all(r('name', 'eq', 'front door'))), [e.front], 'the column collation decides case');
  t.deepEqual(await ids(all(r('start_time', 'eq', '2026-01-10T08:00:00'))), [e.front]);
  t.deepEqual(sorted(await ids(all(r('archived', 'ne', 1)))), sorted([e.front, e.hostile, e.unicode]));
  t.deepEqual(sorted(await ids(all(r('cause', 'ne', 'Motion')))), sorted([e.back, e.hostile]));
});

test('gt, gte, lt and lte', async (t) => {
  t.deepEqual(await ids(all(r('max_score', 'gt', 50))), [e.hostile]);
  t.deepEqual(sorted(await ids(all(r('max_score', 'gte', 50)))), sorted([e.hostile, e.unicode]));
  t.deepEqual(await ids(all(r('max_score', 'lt', 20))), [e.back]);
  t.deepEqual(sorted(await ids(all(r('max_score', 'lte', 20)))), sorted([e.front, e.back]));
  t.deepEqual(await ids(all(r('length', 'gte', '60.5'))), [e.unicode], 'decimal field');
  t.deepEqual(sorted(await ids(all(r('length', 'lt', 30.6), r('length', 'gt', 0)))), [e.hostile]);
  t.deepEqual(sorted(await ids(all(r('start_time', 'lt', '2026-01-11T09:00:00Z')))), [e.front]);
  t.deepEqual(sorted(await ids(all(r('end_time', 'lte', '2026-01-12 10:00:30')))), sorted([e.front, e.hostile]));
});

test('like is "contains" without %, a pattern with %; not_like excludes; _ and \\ are literal in contains', async (t) => {
  t.deepEqual(await ids(all(r('notes', 'like', 'person'))), [e.front]);
  t.deepEqual(await ids(all(r('notes', 'like', '100%'))), [e.hostile], 'with % the value is a LIKE pattern');
  t.deepEqual(await ids(all(r('notes', 'like', 'e_t'))), [e.hostile], 'sure_thing contains e_t');
  t.deepEqual(await ids(all(r('notes', 'like', 'x_y'))), [], '_ is not a wildcard in contains: xzy does not match');
  t.deepEqual(await ids(all(r('notes', 'like', '%x_y%'))), [e.unicode], 'in a pattern _ is a wildcard');
  t.deepEqual(sorted(await ids(all(r('cause', 'not_like', 'motion')))), sorted([e.back, e.hostile]));
  t.deepEqual(await ids(all(r('monitor_name', 'like', 'garage'))), [e.hostile]);
});

test('regexp and not_regexp use MariaDB REGEXP; a bad pattern is a 400 naming the value', async (t) => {
  t.deepEqual(sorted(await ids(all(r('name', 'regexp', '^(Front|Back) ')))), [e.front, e.back]);
  t.deepEqual(sorted(await ids(all(r('name', 'not_regexp', '^(Front|Back) ')))), sorted([e.hostile, e.unicode]));
  const res = await call('POST', '/filters/preview', { where: all(r('name', 'regexp', '(unclosed')) });
  t.is(res.status, 400);
  t.is(res.body.kind, 'INVALID_INPUT_ERROR');
  t.deepEqual(fields(res.body), ['where.rules[0].value']);
  t.is(
    (await call('POST', '/filters/preview', { where: all(r('max_score', 'regexp', '9')) })).status,
    400,
    'regexp applies to text fields',
  );
});

test('in and not_in take lists or comma-separated strings', async (t) => {
  t.deepEqual(sorted(await ids(all(r('monitor_id', 'in', [2, 3])))), sorted([e.hostile, e.unicode]));
  t.deepEqual(sorted(await ids(all(r('monitor_id', 'in', '2, 3')))), sorted([e.hostile, e.unicode]));
  t.deepEqual(sorted(await ids(all(r('name', 'in', ['Front door', 'Back yard', 'nothing'])))), [e.front, e.back]);
  t.deepEqual(sorted(await ids(all(r('monitor_id', 'not_in', [1])))), sorted([e.hostile, e.unicode]));
  t.deepEqual(sorted(await ids(all(r('id', 'in', [e.front, e.unicode])))), sorted([e.front, e.unicode]));
  for (const value of [[], '', null]) {
    const res = await call('POST', '/filters/preview', { where: all(r('monitor_id', 'in', value)) });
    t.is(res.status, 400, JSON.stringify(value));
    t.deepEqual(fields(res.body), ['where.rules[0].value']);
  }
  const tooMany = await call('POST', '/filters/preview', {
    where: all(
      r(
        'monitor_id',
        'in',
        Array.from({ length: 1001 }, (_, i) => i),
      ),
    ),
  });
  t.is(tooMany.status, 400);
});

test('is_null and is_not_null ignore the value', async (t) => {
  t.deepEqual(await ids(all(r('end_time', 'is_null'))), [e.back]);
  t.deepEqual(await ids(all(r('disk_space', 'is_null', 'anything'))), [e.back]);
  t.deepEqual(sorted(await ids(all(r('notes', 'is_not_null')))), sorted([e.front, e.hostile, e.unicode]));
  t.deepEqual((await ids(all(r('server_id', 'is_null')))).length, 4, 'monitor fields join Monitors');
});

test('groups: any/all nest with the meaning of the tree', async (t) => {
  t.deepEqual(
    sorted(await ids(any(r('monitor_id', 'eq', 3), r('max_score', 'gte', 90)))),
    sorted([e.hostile, e.unicode]),
  );
  const nested = all(r('cause', 'eq', 'Motion'), any(r('monitor_id', 'eq', 1), r('max_score', 'gte', 50)));
  t.deepEqual(sorted(await ids(nested)), sorted([e.front, e.unicode]));
  t.deepEqual(await ids(all(r('cause', 'eq', 'Motion'), any(r('monitor_id', 'eq', 2), r('archived', 'eq', 1)))), []);
  t.deepEqual(await ids(all(all(all(r('id', 'eq', e.front))))), [e.front], 'single-rule groups are transparent');
  const empty = await call('POST', '/filters/preview', { where: all(r('id', 'gt', 0), any()) });
  t.is(empty.status, 400);
  t.deepEqual(fields(empty.body), ['where.rules[1].rules']);
});

test('relative times: now and -N unit; anything else is a 400', async (t) => {
  t.deepEqual(await ids(all(r('start_time', 'gte', '-2 hours'))), [e.unicode]);
  t.deepEqual(await ids(all(r('start_time', 'gte', '-1 day'), r('end_time', 'lte', 'now'))), [e.unicode]);
  t.deepEqual(await ids(all(r('start_time', 'gte', '-90 minutes'), r('start_time', 'lte', '-30 minutes'))), [
    e.unicode,
  ]);
  t.deepEqual(sorted(await ids(all(r('start_time', 'lt', '-1 week')))), sorted([e.front, e.back, e.hostile]));
  t.is((await ids(all(r('start_time', 'gte', '-1200 months')))).length, 4);
  for (const bad of ['-1 fortnight', 'yesterday', 'last monday', '2026-13-01', '1 day', 'now-1', '']) {
    const res = await call('POST', '/filters/preview', { where: all(r('start_time', 'gte', bad)) });
    t.is(res.status, 400, bad);
    t.deepEqual(fields(res.body), ['where.rules[0].value'], bad);
  }
});

test('sort and limit', async (t) => {
  t.deepEqual(await ids(all(), { sort: { field: 'max_score', dir: 'asc' } }), [e.back, e.front, e.unicode, e.hostile]);
  t.deepEqual(
    await ids(all(), { sort: { field: 'monitor_name', dir: 'desc' } }).then((l) => l.slice(0, 1)),
    [e.unicode],
    'Yard cam sorts last',
  );
  t.deepEqual(
    await ids(all(), { sort: { field: 'id' } }),
    [e.unicode, e.hostile, e.back, e.front],
    'dir defaults to desc',
  );
  const limited = await call('POST', '/filters/preview?page_size=1&page=2', {
    where: all(),
    sort: { field: 'id', dir: 'asc' },
    limit: 2,
  });
  t.is(limited.status, 200);
  t.deepEqual(
    limited.body.items.map((x: any) => x.id),
    [e.back],
  );
  t.like(limited.body, { total: 2, last_page: 2 });
  const beyond = await call('POST', '/filters/preview?page_size=1&page=3', {
    where: all(),
    sort: { field: 'id', dir: 'asc' },
    limit: 2,
  });
  t.deepEqual(beyond.body.items, []);
  t.is((await call('POST', '/filters/preview', { where: all(), sort: { field: 'password' } })).status, 400);
  t.is((await call('POST', '/filters/preview', { where: all(), limit: -1 })).status, 400);
});

test('paging: page_size default and cap', async (t) => {
  const page2 = await call('POST', '/filters/preview?page=2&page_size=3', { where: all() });
  t.like(page2.body, { total: 4, per_page: 3, current_page: 2, last_page: 2 });
  t.is(page2.body.items.length, 1);
  t.is((await call('POST', '/filters/preview?page_size=1001', { where: all() })).status, 400);
  t.is((await call('POST', '/filters/preview?page_size=1000&per_page=5', { where: all() })).status, 200);
});

test('validation: unknown field or operator, wrong operator for the field, bad values → 400 naming them', async (t) => {
  const unknownField = await call('POST', '/filters/preview', { where: all(r('password', 'eq', 'x')) });
  t.is(unknownField.status, 400);
  t.is(unknownField.body.kind, 'INVALID_INPUT_ERROR');
  t.deepEqual(fields(unknownField.body), ['where.rules[0].field']);
  t.regex(unknownField.body.details[0][1], /unknown field "password"/);
  const unknownOp = await call('POST', '/filters/preview', { where: all(r('name', 'contains', 'x')) });
  t.is(unknownOp.status, 400);
  t.deepEqual(fields(unknownOp.body), ['where.rules[0].op']);
  t.regex(unknownOp.body.details[0][1], /unknown operator "contains"/);
  for (const name of ['__proto__', 'constructor', 'toString', 'Name', 'E.Id']) {
    const res = await call('POST', '/filters/preview', { where: all(r(name, 'eq', 1)) });
    t.is(res.status, 400, name);
    t.deepEqual(fields(res.body), ['where.rules[0].field'], name);
  }
  const sortField = await call('POST', '/filters/preview', { where: all(), sort: { field: 'Id; DROP TABLE Events' } });
  t.deepEqual(fields(sortField.body), ['sort.field']);
  for (const [where, field] of [
    [all(r('monitor_id', 'like', '1')), 'where.rules[0].op'],
    [all(r('start_time', 'in', ['now'])), 'where.rules[0].op'],
    [all(r('monitor_id', 'eq', 'one')), 'where.rules[0].value'],
    [all(r('monitor_id', 'eq', '1 OR 1=1')), 'where.rules[0].value'],
    [all(r('length', 'eq', '1e3')), 'where.rules[0].value'],
    [all(r('monitor_id', 'eq', [1, 2])), 'where.rules[0].value'],
    [all(r('monitor_id', 'eq')), 'where.rules[0].value'],
    [all(r('name', 'eq', 'x'.repeat(4097))), 'where.rules[0].value'],
    [all({ match: 'all', field: 'id', op: 'eq', value: 1 }), 'where.rules[0]'],
    [all({}), 'where.rules[0]'],
  ] as const) {
    const res = await call('POST', '/filters/preview', { where });
    t.is(res.status, 400, JSON.stringify(where));
    t.deepEqual(fields(res.body), [field], JSON.stringify(where));
  }
  t.is((await call('POST', '/filters/preview', {})).status, 400, 'where is required');
  t.is((await call('POST', '/filters/preview', { where: { match: 'some', rules: [] } })).status, 400);
  const deep = (n: number): unknown => (n === 0 ? r('id', 'gt', 0) : all(deep(n - 1)));
  t.is((await call('POST', '/filters/preview', { where: deep(17) })).status, 400, 'nesting is bounded');
  t.is((await call('POST', '/filters/preview', { where: deep(16) })).status, 200);
  // Built as text: JSON.stringify itself cannot nest this deep.
  const abyss = await request(app.api('/filters/preview'), {
    method: 'POST',
    headers: { authorization: `Bearer ${editToken}`, 'content-type': 'application/json' },
    body: `{"where":${'{"rules":['.repeat(20_000)}{"field":"id","op":"gt","value":0}${']}'.repeat(20_000)}}`,
  });
  t.is(abyss.status, 400, 'any nesting is refused with a 400, never a stack overflow');
  // JSON this deep is refused as a whole before the filter's own shape check sees it.
  t.deepEqual(fields(abyss.body), ['body']);
  const wide = await call('POST', '/filters/preview', {
    where: any(...Array.from({ length: 500 }, (_, i) => r('id', 'eq', i))),
  });
  t.is(wide.status, 400, 'the tree size is bounded');
});

test('hostile values are data: quotes, SQL, % and _ and Unicode match literally; the tables survive', async (t) => {
  t.deepEqual(await ids(all(r('name', 'eq', "O'Brien; DROP"))), [e.hostile]);
  t.deepEqual(await ids(all(r('name', 'eq', "'; DROP TABLE Events; --"))), []);
  t.deepEqual(await ids(all(r('name', 'like', "'; DROP TABLE Events; --"))), []);
  t.deepEqual(await ids(all(r('notes', 'regexp', "'; DROP TABLE Events; --"))), []);
  t.deepEqual(await ids(all(r('name', 'in', ["') OR 1=1 --", "O'Brien; DROP"]))), [e.hostile]);
  t.deepEqual(await ids(all(r('notes', 'eq', '100% sure_thing'))), [e.hostile]);
  t.deepEqual(await ids(all(r('notes', 'eq', '100% sure-thing'))), [], '_ in eq is not a wildcard');
  t.deepEqual(await ids(all(r('name', 'eq', 'Café ☕'))), [e.unicode]);
  t.deepEqual(await ids(all(r('notes', 'like', 'ünïcödé'))), [e.unicode]);
  t.deepEqual(await ids(all(r('monitor_name', 'eq', "x' OR '1'='1"))), []);
  const [{ n }] = await sql(db, 'SELECT COUNT(*) AS n FROM Events');
  t.is(Number(n), 4, 'Events still exists and is whole');
});

test('row ACL: events of hidden monitors never appear, whatever the condition', async (t) => {
  t.deepEqual(await ids(all(), {}, restricted), [e.unicode, e.back, e.front]);
  t.deepEqual(await ids(all(r('monitor_id', 'eq', 2)), {}, restricted), []);
  t.deepEqual(await ids(all(r('monitor_name', 'eq', 'Garage cam')), {}, restricted), []);
  t.deepEqual(await ids(any(r('id', 'eq', e.hostile), r('id', 'eq', e.front)), {}, restricted), [e.front]);
  const res = await restricted('POST', '/filters/preview', { where: all() });
  t.is(res.body.total, 3);
});

test('preview needs Events View only; no Events permission is a 403', async (t) => {
  t.is((await viewer('POST', '/filters/preview', { where: all() })).status, 200);
  const denied = await nobody('POST', '/filters/preview', { where: all() });
  t.is(denied.status, 403);
  t.is(denied.body.kind, 'PERMISSION_DENIED_ERROR');
});
