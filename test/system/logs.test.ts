// ZoneMinder's log over HTTP: list with every filter and sort, get, and delete with the same
// filters, including the guard that a delete without any filter needs all=true. System gate.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let nobody: Call;

interface Seed {
  time: string;
  component: string;
  level: number;
  code: string;
  message: string;
  server?: number | null;
  pid?: number | null;
  file?: string | null;
  line?: number | null;
}

async function insertLog(s: Seed, database = db): Promise<number> {
  const [{ Id }] = await sql(
    database,
    'INSERT INTO Logs (TimeKey, Component, ServerId, Pid, Level, Code, Message, File, Line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING Id',
    [s.time, s.component, s.server ?? null, s.pid ?? null, s.level, s.code, s.message, s.file ?? null, s.line ?? null],
  );
  return Number(Id);
}

const l: Record<string, number> = {};

test.before(async () => {
  db = await zmDatabase('logs');
  l.fatal = await insertLog({
    time: '1768000000.000001',
    component: 'zmc_m1',
    level: -3,
    code: 'FAT',
    message: 'Cannot open stream',
    server: 1,
    pid: 100,
    file: 'zm_monitor.cpp',
    line: 42,
  });
  l.error = await insertLog({
    time: '1768000100.500000',
    component: 'zmc_m1',
    level: -2,
    code: 'ERR',
    message: 'Unable to read packet 50%_done',
  });
  l.warning = await insertLog({
    time: '1768000200.000000',
    component: 'zmfilter',
    level: -1,
    code: 'WAR',
    message: "Filter 'Purge' took long",
    server: 2,
  });
  l.info = await insertLog({
    time: '1768000300.250000',
    component: 'web_php',
    level: 0,
    code: 'INF',
    message: 'Login successful for ünïcode',
  });
  l.debug = await insertLog({
    time: '1768000400.000000',
    component: 'zmc_m2',
    level: 1,
    code: 'DB1',
    message: 'Got a packet',
  });
  await addUser(db, 'ladmin', { System: 'Edit' });
  await addUser(db, 'lview', { System: 'View' });
  await addUser(db, 'lnone', { Events: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'ladmin'));
  viewer = caller(app, await login(app, 'lview'));
  nobody = caller(app, await login(app, 'lnone'));
});
test.after.always(async () => app?.close());

const ids = async (query: string, as: Call = call) => {
  const res = await as('GET', `/logs${query}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body.items.map((x: any) => x.id) as number[];
};

test('list: every LogResponse field, newest first', async (t) => {
  const res = await viewer('GET', '/logs');
  t.is(res.status, 200);
  t.deepEqual(
    res.body.items.map((x: any) => x.id),
    [l.debug, l.info, l.warning, l.error, l.fatal],
  );
  t.like(res.body, { total: 5, per_page: 25, current_page: 1, last_page: 1 });
  t.deepEqual(res.body.items[4], {
    id: l.fatal,
    time_key: '1768000000.000001',
    component: 'zmc_m1',
    server_id: 1,
    pid: 100,
    level: -3,
    code: 'FAT',
    message: 'Cannot open stream',
    file: 'zm_monitor.cpp',
    line: 42,
  });
  t.like(res.body.items[0], { server_id: null, pid: null, file: null, line: null });
});

test('filters: component, min_level, level, search, start/end, server_id; sort', async (t) => {
  t.deepEqual(await ids('?component=zmc_m1'), [l.error, l.fatal]);
  t.deepEqual(await ids('?min_level=error'), [l.error, l.fatal]);
  t.deepEqual(await ids('?min_level=WARNING'), [l.warning, l.error, l.fatal]);
  t.deepEqual(await ids('?min_level=fatal'), [l.fatal]);
  t.deepEqual(await ids('?min_level=info'), [l.info, l.warning, l.error, l.fatal]);
  t.deepEqual((await ids('?min_level=debug')).length, 5);
  t.deepEqual(await ids('?min_level=ERR'), [l.error, l.fatal], "ZoneMinder's codes work too");
  t.deepEqual(await ids('?level=-1'), [l.warning]);
  t.deepEqual(await ids('?search=PACKET'), [l.debug, l.error], 'case-insensitive substring');
  t.deepEqual(await ids('?search=50%25_'), [l.error], '% and _ are literal');
  t.deepEqual(await ids('?search=0%25'), [l.error]);
  t.deepEqual(await ids('?search=%25'), [l.error]);
  t.deepEqual(await ids("?search='Purge'"), [l.warning]);
  t.deepEqual(await ids('?search=%C3%BCn%C3%AFcode'), [l.info]);
  t.deepEqual(await ids('?start=1768000100.5&end=1768000300.25'), [l.info, l.warning, l.error]);
  t.deepEqual(await ids('?start=1768000100.6'), [l.debug, l.info, l.warning]);
  t.deepEqual(await ids('?server_id=2'), [l.warning]);
  t.deepEqual(await ids('?component=zmc_m1&min_level=fatal'), [l.fatal]);
  t.deepEqual(await ids('?sort=asc'), [l.fatal, l.error, l.warning, l.info, l.debug]);
  t.deepEqual(await ids('?sort=DESC&page=2&page_size=2'), [l.warning, l.error]);
  t.deepEqual(
    await ids('?per_page=1'),
    [l.debug, l.info, l.warning, l.error, l.fatal],
    'unknown parameters are ignored',
  );
});

test('list validation: 400 naming the parameter', async (t) => {
  for (const [query, field] of [
    ['?min_level=loud', 'min_level'],
    ['?sort=sideways', 'sort'],
    ['?level=high', 'level'],
    ['?start=yesterday', 'start'],
    ['?start=10&end=5', 'end'],
    ['?server_id=-1', 'server_id'],
    ['?page_size=1001', 'page_size'],
    ['?page=-2', 'page'],
    [`?search=${'x'.repeat(1025)}`, 'search'],
  ]) {
    const res = await call('GET', `/logs${query}`);
    t.is(res.status, 400, query);
    t.true(fields(res.body).includes(field), `${query} → ${JSON.stringify(res.body.details)}`);
  }
  t.is((await call('GET', '/logs?page_size=1000')).status, 200);
});

test('get one entry; 404 when missing; id validation', async (t) => {
  const res = await call('GET', `/logs/${l.warning}`);
  t.is(res.status, 200);
  t.like(res.body, { id: l.warning, code: 'WAR', message: "Filter 'Purge' took long", time_key: '1768000200.000000' });
  t.is((await call('GET', '/logs/999999')).status, 404);
  t.is((await call('GET', '/logs/abc')).status, 400);
  t.is((await call('GET', '/logs/-1')).status, 400);
});

test('delete: the same filters choose the rows; no filter needs all=true', async (t) => {
  const d = await zmDatabase('logsdel');
  const made: Record<string, number> = {};
  made.a = await insertLog({ time: '100.000000', component: 'zmc_m1', level: -2, code: 'ERR', message: 'one' }, d);
  made.b = await insertLog({ time: '200.000000', component: 'zmc_m1', level: 0, code: 'INF', message: 'two' }, d);
  made.c = await insertLog({ time: '300.000000', component: 'zmaudit', level: 0, code: 'INF', message: 'three' }, d);
  made.d = await insertLog({ time: '400.000000', component: 'zmaudit', level: 1, code: 'DB1', message: 'four' }, d);
  await addUser(d, 'dadmin', { System: 'Edit' });
  await addUser(d, 'dview', { System: 'View' });
  const other = await startTestApp({ db: d, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  try {
    const admin = caller(other, await login(other, 'dadmin'));
    const view = caller(other, await login(other, 'dview'));
    const left = async () => (await sql(d, 'SELECT Id FROM Logs ORDER BY Id')).map((x: any) => Number(x.Id));

    for (const query of ['', '?per_page=10', '?component=', '?all=false', '?search=']) {
      const refused = await admin('DELETE', `/logs${query}`);
      t.is(refused.status, 400, `DELETE /logs${query}`);
      t.deepEqual(fields(refused.body), ['all']);
    }
    t.is((await left()).length, 4, 'nothing was deleted');
    t.is((await view('DELETE', '/logs?all=true')).status, 403, 'System View may not delete');
    t.is((await admin('DELETE', '/logs?min_level=loud')).status, 400);

    const byLevel = await admin('DELETE', '/logs?min_level=error');
    t.is(byLevel.status, 200);
    t.deepEqual(byLevel.body, { message: 'Deleted 1 log entry' });
    t.deepEqual(await left(), [made.b, made.c, made.d]);
    const byRange = await admin('DELETE', '/logs?component=zmaudit&start=350');
    t.deepEqual(byRange.body, { message: 'Deleted 1 log entry' });
    t.deepEqual(await left(), [made.b, made.c]);
    t.deepEqual((await admin('DELETE', '/logs?search=nothing-matches')).body, { message: 'Deleted 0 log entries' });
    const everything = await admin('DELETE', '/logs?all=true');
    t.deepEqual(everything.body, { message: 'Deleted 2 log entries' });
    t.deepEqual(await left(), []);
  } finally {
    await other.close();
  }
});

test('delete goes in batches: more rows than one batch all go', async (t) => {
  const d = await zmDatabase('logsbig');
  await sql(
    d,
    "INSERT INTO Logs (TimeKey, Component, Level, Code, Message) SELECT seq, 'bulk', 0, 'INF', 'x' FROM seq_1_to_12000",
  );
  await addUser(d, 'badmin', { System: 'Edit' });
  const other = await startTestApp({ db: d, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  try {
    const admin = caller(other, await login(other, 'badmin'));
    const res = await admin('DELETE', '/logs?component=bulk');
    t.deepEqual(res.body, { message: 'Deleted 12000 log entries' });
    const [{ n }] = await sql(d, 'SELECT COUNT(*) AS n FROM Logs');
    t.is(Number(n), 0);
  } finally {
    await other.close();
  }
});

test('the System gate: View lists and reads, None gets 403', async (t) => {
  t.is((await viewer('GET', `/logs/${l.info}`)).status, 200);
  t.is((await nobody('GET', '/logs')).status, 403);
  t.is((await nobody('GET', `/logs/${l.info}`)).status, 403);
  t.is((await nobody('DELETE', '/logs?all=true')).status, 403);
});
