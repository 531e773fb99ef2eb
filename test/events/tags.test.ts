// Tags and tag assignments (events-tags): CRUD, the tag detail with its events, counts and
// lists restricted to visible monitors, who created/assigned (from the token), validation,
// paging and the Events gate.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let limited: Call;
let nobody: Call;
let editorId: number;
const e: Record<string, number> = {};

// Every time the API writes is an instant in UTC with `Z` (ZoneMinder's zone here is UTC).
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

test.before(async () => {
  db = await zmDatabase('tags');
  await sql(db, "INSERT INTO Config (Name, Value, Type) VALUES ('ZM_TIMEZONE', 'UTC', 'string')");
  await insertMonitor(db, 1);
  await insertMonitor(db, 2);
  e.old = await insertEvent(db, { monitorId: 1, name: 'Old', start: '2026-01-10 08:00:00' });
  e.hidden = await insertEvent(db, { monitorId: 2, name: 'Hidden', start: '2026-01-11 08:00:00' });
  e.new = await insertEvent(db, { monitorId: 1, name: 'New', start: '2026-01-12 08:00:00' });
  editorId = await addUser(db, 'tedit', { Events: 'Edit' });
  await addUser(db, 'tview', { Events: 'View' });
  await addUser(db, 'tnone', { System: 'Edit' });
  const limitedId = await addUser(db, 'tlimited', { Events: 'Edit', Monitors: 'View' });
  await sql(db, "INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (2, ?, 'None')", [limitedId]);
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'tedit'));
  viewer = caller(app, await login(app, 'tview'));
  limited = caller(app, await login(app, 'tlimited'));
  nobody = caller(app, await login(app, 'tnone'));
});
test.after.always(async () => app?.close());

async function tagWithEvents(name: string, events: number[]): Promise<number> {
  const tag = await call('POST', '/tags', { name });
  if (tag.status !== 201) throw new Error(`${tag.status} ${tag.text}`);
  for (const event_id of events) await call('POST', '/events-tags', { tag_id: tag.body.id, event_id });
  return tag.body.id;
}

test('create, get, patch and delete a tag; the creator is the caller', async (t) => {
  const created = await call('POST', '/tags', { name: 'Café', extra: 1 });
  t.is(created.status, 201);
  t.like(created.body, { name: 'Café', event_count: 0 });
  t.regex(created.body.create_date, UTC);
  const [row] = await sql(db, 'SELECT CreatedBy FROM Tags WHERE Id = ?', [created.body.id]);
  t.is(Number(row.CreatedBy), editorId);
  const dated = await call('POST', '/tags', { name: 'Dated', create_date: '2025-06-01T12:30:00' });
  t.is(dated.body.create_date, '2025-06-01T12:30:00Z');
  // What a client read can be sent back; an offset names an instant.
  const offset = await call('POST', '/tags', { name: 'Offset', create_date: '2025-06-01T12:30:00+02:00' });
  t.is(offset.body.create_date, '2025-06-01T10:30:00Z');

  const got = await call('GET', `/tags/${created.body.id}`);
  t.deepEqual(got.body, {
    id: created.body.id,
    name: 'Café',
    create_date: created.body.create_date,
    events: [],
    total_events: 0,
    current_page: 1,
    last_page: 1,
    per_page: 25,
  });
  const patched = await call('PATCH', `/tags/${created.body.id}`, { name: 'Cafe' });
  t.is(patched.status, 200);
  t.like(patched.body, { id: created.body.id, name: 'Cafe', create_date: created.body.create_date });
  t.is((await call('DELETE', `/tags/${created.body.id}`)).status, 204);
  t.is((await call('GET', `/tags/${created.body.id}`)).status, 404);
  t.is((await call('PATCH', `/tags/${created.body.id}`, { name: 'x' })).status, 404);
  t.is((await call('DELETE', `/tags/${created.body.id}`)).status, 404);
});

test('names: unique (409), Latin-1, 1..64 characters; ids must be integers', async (t) => {
  t.is((await call('POST', '/tags', { name: 'Twice' })).status, 201);
  const dup = await call('POST', '/tags', { name: 'Twice' });
  t.is(dup.status, 409);
  t.is(dup.body.kind, 'CONFLICT_ERROR');
  const other = await call('POST', '/tags', { name: 'Other' });
  t.is((await call('PATCH', `/tags/${other.body.id}`, { name: 'Twice' })).status, 409);
  for (const [body, field] of [
    [{ name: 'Coffee ☕' }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(65) }, 'name'],
    [{}, 'name'],
    [{ name: 'ok', create_date: '2026-13-01T00:00:00Z' }, 'create_date'],
    [{ name: 'ok', create_date: '1960-01-01T00:00:00' }, 'create_date'],
  ] as const) {
    const res = await call('POST', '/tags', body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(fields(res.body).includes(field), `${JSON.stringify(body)} → ${JSON.stringify(res.body.details)}`);
  }
  t.is((await call('PATCH', `/tags/${other.body.id}`, { name: '☕' })).status, 400);
  t.is((await call('GET', '/tags/abc')).status, 400);
  t.is((await call('GET', '/tags/-1')).status, 400);
});

test('tag detail: visible events newest first, paged; event_count counts visible events only', async (t) => {
  const id = await tagWithEvents('Detail', [e.old, e.hidden, e.new]);
  const full = await call('GET', `/tags/${id}`);
  t.deepEqual(full.body.events, [
    { id: e.new, monitor_id: 1, name: 'New', start_date_time: '2026-01-12T08:00:00Z' },
    { id: e.hidden, monitor_id: 2, name: 'Hidden', start_date_time: '2026-01-11T08:00:00Z' },
    { id: e.old, monitor_id: 1, name: 'Old', start_date_time: '2026-01-10T08:00:00Z' },
  ]);
  t.is(full.body.total_events, 3);
  const page2 = await call('GET', `/tags/${id}?page=2&page_size=2`);
  t.like(page2.body, { total_events: 3, current_page: 2, last_page: 2, per_page: 2 });
  t.deepEqual(
    page2.body.events.map((x: any) => x.id),
    [e.old],
  );
  t.is((await call('GET', `/tags/${id}?page_size=1001`)).status, 400);

  const restricted = await limited('GET', `/tags/${id}`);
  t.deepEqual(
    restricted.body.events.map((x: any) => x.id),
    [e.new, e.old],
  );
  t.is(restricted.body.total_events, 2);
  const count = async (as: Call) => {
    const list = await as('GET', '/tags?page_size=1000');
    return list.body.items.find((x: any) => x.id === id).event_count;
  };
  t.is(await count(call), 3);
  t.is(await count(limited), 2);
});

test('tag list: paging envelope and limits', async (t) => {
  await call('POST', '/tags', { name: 'P1' });
  await call('POST', '/tags', { name: 'P2' });
  const list = await call('GET', '/tags?page=1&page_size=1&per_page=1000');
  t.is(list.status, 200);
  t.like(list.body, { per_page: 1, current_page: 1 });
  t.is(list.body.items.length, 1);
  t.is(list.body.last_page, list.body.total);
  t.deepEqual(Object.keys(list.body.items[0]).sort(), ['create_date', 'event_count', 'id', 'name']);
  t.is((await call('GET', '/tags?page_size=1001')).status, 400);
  t.is((await call('GET', '/tags?page=-1')).status, 400);
});

test('assign a tag: the assigner comes from the token; unknown or hidden event/tag → 400; twice → 409', async (t) => {
  const tag = (await call('POST', '/tags', { name: 'Assign' })).body.id;
  const res = await call('POST', '/events-tags', { tag_id: tag, event_id: e.old, assigned_by: 999 });
  t.is(res.status, 201);
  t.like(res.body, { tag_id: tag, event_id: e.old, assigned_by: editorId });
  t.regex(res.body.assigned_date, UTC);
  const [row] = await sql(db, 'SELECT LastAssignedDate FROM Tags WHERE Id = ?', [tag]);
  t.truthy(row.LastAssignedDate, 'the tag records its last assignment');
  t.is((await call('POST', '/events-tags', { tag_id: tag, event_id: e.old })).status, 409);
  const unknown = await call('POST', '/events-tags', { tag_id: 999999, event_id: 999999 });
  t.is(unknown.status, 400);
  t.deepEqual(fields(unknown.body).sort(), ['event_id', 'tag_id']);
  const hidden = await limited('POST', '/events-tags', { tag_id: tag, event_id: e.hidden });
  t.is(hidden.status, 400);
  t.deepEqual(fields(hidden.body), ['event_id']);
  t.is((await call('POST', '/events-tags', { tag_id: tag })).status, 400);
  t.is((await call('POST', '/events-tags', { tag_id: -1, event_id: e.old })).status, 400);
});

test('assignments: list with filters, get and delete; hidden events behave as missing', async (t) => {
  const tag = await tagWithEvents('Rows', [e.old, e.hidden]);
  const list = await call('GET', `/events-tags?tag_id=${tag}`);
  t.deepEqual(
    list.body.items.map((x: any) => x.event_id),
    [e.old, e.hidden].sort((a, b) => a - b),
  );
  t.is(list.body.total, 2);
  const byEvent = await call('GET', `/events-tags?event_id=${e.hidden}&tag_id=${tag}`);
  t.deepEqual(
    byEvent.body.items.map((x: any) => [x.tag_id, x.event_id]),
    [[tag, e.hidden]],
  );
  t.deepEqual(
    (await limited('GET', `/events-tags?tag_id=${tag}`)).body.items.map((x: any) => x.event_id),
    [e.old],
  );

  const got = await call('GET', `/events-tags/${tag}/${e.hidden}`);
  t.is(got.status, 200);
  t.like(got.body, { tag_id: tag, event_id: e.hidden, assigned_by: editorId });
  const hidden = await limited('GET', `/events-tags/${tag}/${e.hidden}`);
  t.is(hidden.status, 404);
  t.is(hidden.body.kind, 'EVENT_TAG_NOT_FOUND_ERROR');
  t.is(hidden.body.code, 6);
  t.is((await limited('DELETE', `/events-tags/${tag}/${e.hidden}`)).status, 404);
  t.is((await call('DELETE', `/events-tags/${tag}/${e.hidden}`)).status, 204);
  t.is((await call('GET', `/events-tags/${tag}/${e.hidden}`)).status, 404);
  t.is((await call('DELETE', `/events-tags/${tag}/${e.hidden}`)).status, 404);
  t.is((await call('GET', '/events-tags/abc/1')).status, 400);
  t.is((await call('GET', '/events-tags?page_size=1001')).status, 400);
  // Deleting the tag removes its remaining assignments (foreign key cascade).
  t.is((await call('DELETE', `/tags/${tag}`)).status, 204);
  const [{ n }] = await sql(db, 'SELECT COUNT(*) AS n FROM Events_Tags WHERE TagId = ?', [tag]);
  t.is(Number(n), 0);
});

test('the Events gate: View reads tags and assignments, writes need Edit, None gets 403', async (t) => {
  const tag = await tagWithEvents('Gate', [e.new]);
  t.is((await viewer('GET', '/tags')).status, 200);
  t.is((await viewer('GET', `/tags/${tag}`)).status, 200);
  t.is((await viewer('GET', '/events-tags')).status, 200);
  t.is((await viewer('GET', `/events-tags/${tag}/${e.new}`)).status, 200);
  for (const [method, path, body] of [
    ['POST', '/tags', { name: 'nope' }],
    ['PATCH', `/tags/${tag}`, { name: 'nope' }],
    ['DELETE', `/tags/${tag}`, undefined],
    ['POST', '/events-tags', { tag_id: tag, event_id: e.old }],
    ['DELETE', `/events-tags/${tag}/${e.new}`, undefined],
  ] as const) {
    t.is((await viewer(method, path, body)).status, 403, `${method} ${path}`);
  }
  t.is((await nobody('GET', '/tags')).status, 403);
  t.is((await nobody('GET', '/events-tags')).status, 403);
});

test('events carry their tags in EventResponse.tags', async (t) => {
  const tag = await tagWithEvents('Shown', [e.new]);
  const event = await call('GET', `/events/${e.new}`);
  t.true(event.body.tags.some((x: any) => x.id === tag && x.name === 'Shown'));
});
