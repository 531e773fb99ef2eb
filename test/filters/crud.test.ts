// Saved filters over HTTP: create from the tree or from ZoneMinder's query_json, what is stored
// (ZoneMinder's Query_json, runnable by zmfilter.pl), rows written by ZoneMinder itself, partial
// PUT, delete, paging, validation, the auto_execute guard and the Events gate.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let admin: Call;
let viewer: Call;
let nobody: Call;
let editorId: number;

test.before(async () => {
  db = await zmDatabase('filters');
  editorId = await addUser(db, 'fedit', { Events: 'Edit' });
  await addUser(db, 'fadmin', { Events: 'Edit', System: 'Edit' });
  await addUser(db, 'fview', { Events: 'View' });
  await addUser(db, 'fnone', { System: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'fedit'));
  admin = caller(app, await login(app, 'fadmin'));
  viewer = caller(app, await login(app, 'fview'));
  nobody = caller(app, await login(app, 'fnone'));
});
test.after.always(async () => app?.close());

const r = (field: string, op: string, value?: unknown) => ({ field, op, ...(value !== undefined && { value }) });
const stored = async (id: number) =>
  JSON.parse((await sql(db, 'SELECT Query_json FROM Filters WHERE Id = ?', [id]))[0].Query_json);

test.serial('create from the tree: stored as ZoneMinder terms, answered with both forms and every field', async (t) => {
  const filter = {
    where: {
      match: 'all',
      rules: [
        r('monitor_id', 'in', [1, 2]),
        { match: 'any', rules: [r('name', 'like', 'door'), r('max_score', 'gte', 50)] },
      ],
    },
    sort: { field: 'start_time', dir: 'asc' },
    limit: 10,
  };
  const res = await call('POST', '/filters', {
    name: 'Doors',
    filter,
    auto_archive: 1,
    email_format: 'Summary',
    background: 1,
    extra: 'ignored',
  });
  t.is(res.status, 201);
  const zm = {
    terms: [
      { attr: 'MonitorId', op: 'IN', val: '1,2' },
      { cnj: 'and', obr: '1', attr: 'Name', op: 'LIKE', val: 'door' },
      { cnj: 'or', attr: 'MaxScore', op: '>=', val: '50', cbr: '1' },
    ],
    sort_field: 'StartDateTime',
    sort_asc: 1,
    limit: 10,
  };
  t.deepEqual(await stored(res.body.id), zm);
  t.deepEqual(JSON.parse(res.body.query_json), zm);
  t.deepEqual(res.body.filter, {
    where: {
      match: 'all',
      rules: [
        r('monitor_id', 'in', ['1', '2']),
        { match: 'any', rules: [r('name', 'like', 'door'), r('max_score', 'gte', '50')] },
      ],
    },
    sort: { field: 'start_time', dir: 'asc' },
    limit: 10,
  });
  t.deepEqual(res.body, {
    id: res.body.id,
    name: 'Doors',
    query_json: res.body.query_json,
    filter: res.body.filter,
    auto_archive: 1,
    auto_unarchive: 0,
    auto_video: 0,
    auto_upload: 0,
    auto_email: 0,
    email_to: null,
    email_subject: null,
    email_body: null,
    email_server: null,
    email_format: 'Summary',
    auto_message: 0,
    auto_execute: 0,
    auto_execute_cmd: null,
    auto_delete: 0,
    auto_move: 0,
    auto_move_to: 0,
    auto_copy: 0,
    auto_copy_to: 0,
    update_disk_space: 0,
    background: 1,
    concurrent: 0,
    lock_rows: 0,
    execute_interval: 60,
    user_id: editorId,
  });
  t.deepEqual((await call('GET', `/filters/${res.body.id}`)).body, res.body);
});

test('create from query_json: validated, stored normalised, skip_locked kept; the tree wins when both are given', async (t) => {
  const queryJson = JSON.stringify({
    terms: [
      { attr: 'Archived', op: '=', val: 0 },
      { cnj: 'and', obr: '0', attr: 'EndDateTime', op: 'IS NOT', val: 'NULL', cbr: '0' },
      { cnj: 'or', attr: 'StartDateTime', op: '>=', val: '-1 day' },
    ],
    sort_field: 'Id',
    sort_asc: 1,
    limit: 100,
    skip_locked: 1,
  });
  const res = await call('POST', '/filters', { name: 'Recent', query_json: queryJson });
  t.is(res.status, 201);
  t.deepEqual(await stored(res.body.id), {
    terms: [
      { obr: '1', attr: 'Archived', op: '=', val: '0' },
      { cnj: 'and', attr: 'EndDateTime', op: 'IS NOT', val: 'NULL', cbr: '1' },
      { cnj: 'or', attr: 'StartDateTime', op: '>=', val: '-1 day' },
    ],
    sort_field: 'Id',
    sort_asc: 1,
    limit: 100,
    skip_locked: 1,
  });
  t.deepEqual(res.body.filter.where, {
    match: 'any',
    rules: [
      { match: 'all', rules: [r('archived', 'eq', '0'), r('end_time', 'is_not_null', null)] },
      r('start_time', 'gte', '-1 day'),
    ],
  });
  const both = await call('POST', '/filters', {
    name: 'Both',
    query_json: queryJson,
    filter: { where: r('id', 'eq', 7) },
  });
  t.is(both.status, 201);
  t.deepEqual((await stored(both.body.id)).terms, [{ attr: 'Id', op: '=', val: '7' }]);
});

test('a filter written by ZoneMinder with attributes the tree lacks: query_json as stored, filter null', async (t) => {
  const raw =
    '{"sort_field":"Id","terms":[{"val":0,"attr":"Archived","op":"="},{"cnj":"and","val":95,"attr":"DiskPercent","op":">="}],"limit":100,"sort_asc":1}';
  const [{ Id }] = await sql(
    db,
    "INSERT INTO Filters (Name, Query_json, AutoDelete, Background) VALUES ('PurgeWhenFull', ?, 1, 1) RETURNING Id",
    [raw],
  );
  const res = await call('GET', `/filters/${Id}`);
  t.is(res.status, 200);
  t.like(res.body, {
    name: 'PurgeWhenFull',
    query_json: raw,
    filter: null,
    auto_delete: 1,
    background: 1,
    user_id: null,
  });
  // Updating other fields keeps ZoneMinder's query untouched.
  const renamed = await call('PUT', `/filters/${Id}`, { name: 'Purge' });
  t.is(renamed.status, 200);
  t.is(renamed.body.query_json, raw);
});

test('PUT is partial; a new condition replaces the stored one; null clears texts and keeps flags', async (t) => {
  const created = await call('POST', '/filters', {
    name: 'Partial',
    filter: { where: r('monitor_id', 'eq', 1) },
    auto_email: 1,
    email_to: 'a@example.org',
  });
  const id = created.body.id;
  const renamed = await call('PUT', `/filters/${id}`, { name: 'Partial 2', email_to: null, auto_email: null });
  t.is(renamed.status, 200);
  t.like(renamed.body, { name: 'Partial 2', email_to: null, auto_email: 1, query_json: created.body.query_json });
  const requeried = await call('PUT', `/filters/${id}`, {
    query_json: '{"terms":[{"attr":"MonitorName","op":"=~","val":"^Front"}]}',
  });
  t.deepEqual(requeried.body.filter.where, { match: 'all', rules: [r('monitor_name', 'regexp', '^Front')] });
  t.deepEqual((await stored(id)).terms, [{ attr: 'MonitorName', op: '=~', val: '^Front' }]);
  t.is((await call('PUT', '/filters/999999', { name: 'x' })).status, 404);
});

test('delete, then 404; list pages in Id order', async (t) => {
  const ids: number[] = [];
  for (const name of ['L1', 'L2', 'L3'])
    ids.push((await call('POST', '/filters', { name, filter: { where: { rules: [] } } })).body.id);
  const del = await call('DELETE', `/filters/${ids[1]}`);
  t.is(del.status, 204);
  t.is(del.text, '');
  t.is((await call('GET', `/filters/${ids[1]}`)).status, 404);
  t.is((await call('DELETE', `/filters/${ids[1]}`)).status, 404);
  const list = await call('GET', '/filters?page_size=1000&per_page=1');
  t.is(list.status, 200);
  const listed = list.body.items.map((f: any) => f.id);
  t.true(listed.includes(ids[0]) && listed.includes(ids[2]) && !listed.includes(ids[1]));
  t.deepEqual(
    listed,
    [...listed].sort((a: number, b: number) => a - b),
  );
  const page = await call('GET', '/filters?page=2&page_size=1');
  t.like(page.body, { per_page: 1, current_page: 2, last_page: list.body.total });
  t.is((await call('GET', '/filters?page_size=1001')).status, 400);
});

test('values zmfilter.pl would splice into SQL unescaped are refused on save (preview takes them)', async (t) => {
  const res = await call('POST', '/filters', {
    name: 'Quote',
    filter: { where: { rules: [r('name', 'eq', "'; DROP TABLE Events; --")] } },
  });
  t.is(res.status, 400);
  t.deepEqual(fields(res.body), ['filter.where.rules[0].value']);
  const viaZm = await call('POST', '/filters', {
    name: 'Quote',
    query_json: JSON.stringify({ terms: [{ attr: 'Cause', op: 'LIKE', val: 'a,b' }] }),
  });
  t.is(viaZm.status, 400);
  t.deepEqual(fields(viaZm.body), ['query_json']);
  t.regex(viaZm.body.details[0][1], /terms|rules\[0\]/);
  const [{ n }] = await sql(db, "SELECT COUNT(*) AS n FROM Filters WHERE Name = 'Quote'");
  t.is(Number(n), 0);
  t.is(
    (await call('POST', '/filters/preview', { where: { rules: [r('name', 'eq', "'; DROP TABLE Events; --")] } }))
      .status,
    200,
  );
});

test('validation: 400 naming the field', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{ name: 'x' }, 'filter'],
    [{ filter: { where: { rules: [] } } }, 'name'],
    [{ name: 'x'.repeat(65), filter: { where: { rules: [] } } }, 'name'],
    [{ name: 'x', filter: { where: { rules: [r('password', 'eq', 1)] } } }, 'filter.where.rules[0].field'],
    [{ name: 'x', filter: { where: { rules: [r('id', 'between', 1)] } } }, 'filter.where.rules[0].op'],
    [
      { name: 'x', filter: { where: { rules: [r('start_time', 'gte', 'last tuesday')] } } },
      'filter.where.rules[0].value',
    ],
    [{ name: 'x', filter: { where: { rules: [r('name', 'regexp', '[')] } } }, 'filter.where.rules[0].value'],
    [{ name: 'x', query_json: '{"terms":[{"attr":"SystemLoad","op":">","val":5}]}' }, 'query_json.terms[0].attr'],
    [{ name: 'x', query_json: '{"terms":[{"attr":"Id","op":"LIKE","val":5}]}' }, 'query_json.terms[0].op'],
    [{ name: 'x', query_json: 'DROP TABLE Filters' }, 'query_json'],
    [{ name: 'x', filter: { where: { rules: [] } }, email_format: 'Bogus' }, 'email_format'],
    [{ name: 'x', filter: { where: { rules: [] } }, auto_delete: 2 }, 'auto_delete'],
    [{ name: 'x', filter: { where: { rules: [] } }, auto_move_to: 70000 }, 'auto_move_to'],
    [{ name: 'x', filter: { where: { rules: [] } }, execute_interval: -1 }, 'execute_interval'],
  ];
  for (const [body, field] of cases) {
    const res = await call('POST', '/filters', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${JSON.stringify(body)} → ${JSON.stringify(res.body.details)}`);
  }
  t.is((await call('GET', '/filters/abc')).status, 400);
  t.is((await call('GET', '/filters/-1')).status, 400);
  t.is((await call('GET', '/filters/4294967296')).status, 400, 'beyond the id type: refused, never a 500');
});

test('auto_execute and auto_execute_cmd need System Edit', async (t) => {
  const base = { name: 'Exec', filter: { where: { rules: [] } } };
  const denied = await call('POST', '/filters', { ...base, auto_execute: 1, auto_execute_cmd: '/bin/true' });
  t.is(denied.status, 403);
  t.deepEqual(fields(denied.body), ['auto_execute', 'auto_execute_cmd']);
  const created = await admin('POST', '/filters', {
    ...base,
    auto_execute: 1,
    auto_execute_cmd: '/usr/local/bin/notify',
  });
  t.is(created.status, 201);
  t.like(created.body, { auto_execute: 1, auto_execute_cmd: '/usr/local/bin/notify' });
  t.is((await call('PUT', `/filters/${created.body.id}`, { auto_execute_cmd: 'rm -rf /' })).status, 403);
  t.is(
    (await call('PUT', `/filters/${created.body.id}`, { name: 'Exec renamed', auto_execute: 0 })).status,
    200,
    'other edits and turning it off are fine',
  );
  t.is((await call('POST', '/filters', { ...base, auto_execute_cmd: 'x'.repeat(256) })).status, 400, 'tinytext bound');
});

test('the Events gate: View reads, Edit writes, None nothing', async (t) => {
  const id = (await call('POST', '/filters', { name: 'Gate', filter: { where: { rules: [] } } })).body.id;
  t.is((await viewer('GET', '/filters')).status, 200);
  t.is((await viewer('GET', `/filters/${id}`)).status, 200);
  for (const [method, path] of [
    ['POST', '/filters'],
    ['PUT', `/filters/${id}`],
    ['DELETE', `/filters/${id}`],
  ]) {
    const res = await viewer(method, path, method === 'DELETE' ? undefined : { name: 'x' });
    t.is(res.status, 403, `${method} ${path}`);
  }
  t.is((await nobody('GET', '/filters')).status, 403);
  t.is((await nobody('GET', `/filters/${id}`)).status, 403);
});
