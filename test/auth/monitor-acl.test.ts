// Row-level ACL rules on a real database, one rule per test (docs/zoneminder/users.md visibility order).
import test from 'ava';
import {
  DbMonitorAcl,
  canEdit,
  canSee,
  isUnrestricted,
  parseMonitorIds,
  type Queryable,
} from '../../src/auth/monitor-acl.js';
import type { AuthUser } from '../../src/auth/auth-service.js';
import { noPermissions } from '../../src/auth/permissions.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let counter = 0;

const q = (sql: string, params: unknown[] = []) => db.db.query<any>(sql, params, db.name);

/** A Queryable over the test database that counts statements (for the O(1) checks). */
function counting(): Queryable & { count: number } {
  const conn = {
    count: 0,
    query: (sql: string, values?: unknown[]) => {
      conn.count++;
      return q(sql, values);
    },
  };
  return conn;
}

async function user(monitors = 'Edit', extra: { roleId?: number; groups?: string } = {}): Promise<AuthUser> {
  const name = `u${++counter}`;
  const id = await insertUser(db, {
    username: name,
    password: name,
    stored: 'x',
    perms: { Monitors: monitors, Groups: extra.groups ?? 'Edit' },
    roleId: extra.roleId ?? null,
  });
  return { id, username: name, perms: noPermissions(), issuedAt: 0, expiresAt: 0 };
}

async function monitor(name = `m${++counter}`): Promise<number> {
  return Number((await q('INSERT INTO Monitors (Name) VALUES (?) RETURNING Id', [name]))[0].Id);
}

async function group(parentId: number | null = null, members: number[] = []): Promise<number> {
  const id = Number(
    (await q('INSERT INTO `Groups` (Name, ParentId) VALUES (?, ?) RETURNING Id', [`g${++counter}`, parentId]))[0].Id,
  );
  for (const m of members) await q('INSERT INTO Groups_Monitors (GroupId, MonitorId) VALUES (?, ?)', [id, m]);
  return id;
}

const monitorRow = (u: AuthUser, m: number, p: string) =>
  q('INSERT INTO Monitors_Permissions (UserId, MonitorId, Permission) VALUES (?, ?, ?)', [u.id, m, p]);
const groupRow = (u: AuthUser, g: number, p: string) =>
  q('INSERT INTO Groups_Permissions (UserId, GroupId, Permission) VALUES (?, ?, ?)', [u.id, g, p]);

async function role(monitors = 'None'): Promise<number> {
  return Number(
    (await q('INSERT INTO User_Roles (Name, Monitors) VALUES (?, ?) RETURNING Id', [`r${++counter}`, monitors]))[0].Id,
  );
}

const fresh = () => new DbMonitorAcl({ query: (sql: string, v?: unknown[]) => q(sql, v) }, { ttlMs: 0 });

test.before(async () => {
  db = await zmDatabase('acl');
});

test('default allow: no row-level entries means unrestricted (null sets)', async (t) => {
  const u = await user('View');
  await monitor();
  const scope = await fresh().scope(u);
  t.true(isUnrestricted(scope));
  t.is(scope.visible, null);
  t.true(isUnrestricted(await fresh().groupScope(u)));
});

test('Inherit rows alone restrict nothing', async (t) => {
  const u = await user();
  await monitorRow(u, await monitor(), 'Inherit');
  t.true(isUnrestricted(await fresh().scope(u)));
});

test('direct rows: None hides, View shows read-only, Edit edits; other monitors fall back to the area', async (t) => {
  const u = await user('Edit');
  const [hidden, viewOnly, edit, other] = [await monitor(), await monitor(), await monitor(), await monitor()];
  await monitorRow(u, hidden, 'None');
  await monitorRow(u, viewOnly, 'View');
  await monitorRow(u, edit, 'Edit');
  const scope = await fresh().scope(u);
  t.false(canSee(scope, hidden));
  t.true(canSee(scope, viewOnly));
  t.false(canEdit(scope, viewOnly));
  t.true(canEdit(scope, edit));
  t.true(canEdit(scope, other), 'no row: Monitors=Edit area decides');
  const viewer = await user('View');
  await monitorRow(viewer, hidden, 'None');
  const vs = await fresh().scope(viewer);
  t.true(canSee(vs, other));
  t.false(canEdit(vs, other), 'Monitors=View area: visible, not editable');
});

test("group rows cover the group's monitors; Edit edits, View reads", async (t) => {
  const u = await user('Edit');
  const [a, b, outside] = [await monitor(), await monitor(), await monitor()];
  const gView = await group(null, [a]);
  const gEdit = await group(null, [b]);
  await groupRow(u, gView, 'View');
  await groupRow(u, gEdit, 'Edit');
  const scope = await fresh().scope(u);
  t.true(canSee(scope, a));
  t.false(canEdit(scope, a));
  t.true(canEdit(scope, b));
  t.true(canEdit(scope, outside));
});

test('nested groups: a row on an ancestor covers monitors of every descendant', async (t) => {
  const u = await user('Edit');
  const deep = await monitor();
  const top = await group();
  const mid = await group(top);
  await group(mid, [deep]);
  await groupRow(u, top, 'None');
  t.false(canSee(await fresh().scope(u), deep));
});

test('None overrides: any covering group with None hides, unless the monitor row says otherwise', async (t) => {
  const u = await user('Edit');
  const m = await monitor();
  const shown = await monitor();
  await groupRow(u, await group(null, [m, shown]), 'Edit');
  await groupRow(u, await group(null, [m, shown]), 'None');
  await monitorRow(u, shown, 'View');
  const scope = await fresh().scope(u);
  t.false(canSee(scope, m));
  t.true(canSee(scope, shown), 'the direct row comes first');
  t.false(canEdit(scope, shown));
});

test("role rows apply after the user's own rows; the role area fills a None user area", async (t) => {
  const r = await role('View');
  const [byRole, byRoleGroup, ownWins, plain] = [await monitor(), await monitor(), await monitor(), await monitor()];
  await q('INSERT INTO Role_Monitors_Permissions (RoleId, MonitorId, Permission) VALUES (?, ?, ?), (?, ?, ?)', [
    r,
    byRole,
    'None',
    r,
    ownWins,
    'None',
  ]);
  await q('INSERT INTO Role_Groups_Permissions (RoleId, GroupId, Permission) VALUES (?, ?, ?)', [
    r,
    await group(null, [byRoleGroup]),
    'None',
  ]);
  const u = await user('None', { roleId: r });
  await monitorRow(u, ownWins, 'Edit');
  const scope = await fresh().scope(u);
  t.false(canSee(scope, byRole));
  t.false(canSee(scope, byRoleGroup));
  t.true(canEdit(scope, ownWins));
  t.true(canSee(scope, plain), 'user Monitors=None, role Monitors=View ⇒ visible');
  t.false(canEdit(scope, plain));
});

test('a user with no rows but a role with rows is restricted by the role', async (t) => {
  const r = await role('None');
  const m = await monitor();
  await q('INSERT INTO Role_Monitors_Permissions (RoleId, MonitorId, Permission) VALUES (?, ?, ?)', [r, m, 'None']);
  const u = await user('View', { roleId: r });
  const scope = await fresh().scope(u);
  t.false(isUnrestricted(scope));
  t.false(canSee(scope, m));
});

test.serial('1.36 Users.MonitorIds: a list restricts, explicit rows still come first, empty means all', async (t) => {
  await q('ALTER TABLE Users ADD COLUMN MonitorIds TINYTEXT NULL');
  try {
    const [a, b, c] = [await monitor(), await monitor(), await monitor()];
    const listed = await user('View');
    await q('UPDATE Users SET MonitorIds = ? WHERE Id = ?', [`${a}, ${c}`, listed.id]);
    await monitorRow(listed, b, 'View');
    const scope = await fresh().scope(listed);
    t.true(canSee(scope, a));
    t.true(canSee(scope, b), 'explicit row');
    t.true(canSee(scope, c));
    const d = await monitor();
    t.false(canSee(await fresh().scope(listed), d));
    const everyone = await user('View');
    await q('UPDATE Users SET MonitorIds = ? WHERE Id = ?', ['', everyone.id]);
    t.true(isUnrestricted(await fresh().scope(everyone)));
  } finally {
    await q('ALTER TABLE Users DROP COLUMN MonitorIds');
  }
  t.deepEqual(parseMonitorIds('3,x, 5,,'), new Set([3, 5]));
  t.is(parseMonitorIds(''), null);
  t.is(parseMonitorIds(null), null);
});

test('a ParentId cycle neither hangs nor crashes; the rows still apply', async (t) => {
  const m = await monitor();
  const a = await group(null, [m]);
  const b = await group(a);
  await q('UPDATE `Groups` SET ParentId = ? WHERE Id = ?', [b, a]); // a → b → a
  const u = await user('Edit');
  await groupRow(u, b, 'View');
  const scope = await fresh().scope(u);
  t.true(canSee(scope, m));
  t.false(canEdit(scope, m));
  const groups = await fresh().groupScope(u);
  t.true(groups.visible!.has(a) && groups.visible!.has(b));
  t.false(groups.editable!.has(a));
  await q('UPDATE `Groups` SET ParentId = NULL WHERE Id = ?', [a]);
});

test('group scope: a row applies to the group and its descendants; None hides the subtree', async (t) => {
  const top = await group();
  const child = await group(top);
  const grandChild = await group(child);
  const other = await group();
  const u = await user('Edit', { groups: 'View' });
  await groupRow(u, top, 'Edit');
  await groupRow(u, grandChild, 'None');
  const s = await fresh().groupScope(u);
  t.true(s.editable!.has(top) && s.editable!.has(child));
  t.false(s.visible!.has(grandChild));
  t.true(s.visible!.has(other), 'fallback: Groups area View');
  t.false(s.editable!.has(other));
});

test('cost: a scope takes the same few queries for 1 or 60 monitors, and is cached per user', async (t) => {
  const u = await user('Edit');
  await monitorRow(u, await monitor(), 'View');
  await groupRow(u, await group(null, [await monitor()]), 'View');
  const counted = counting();
  const acl = new DbMonitorAcl(counted, { ttlMs: 60_000 });
  await acl.scope(u);
  const first = counted.count;
  for (let i = 0; i < 60; i++) await monitor();
  acl.invalidate(u.id);
  const before = counted.count;
  const scope = await acl.scope(u);
  t.is(counted.count - before, first - 2, 'same number of queries (minus the one-off schema probe)');
  t.true(scope.visible!.size > 60);
  await Promise.all([acl.scope(u), acl.scope(u), acl.groupScope(u)]);
  t.is(counted.count - before, first - 2, 'cached: no further queries within the TTL');
  t.true(first <= 10, `at most 10 queries, got ${first}`);
  acl.invalidate();
  await acl.scope(u);
  t.true(counted.count > before + first - 2, 'invalidate() forces a reload');
});

test('the cache expires after its TTL', async (t) => {
  let now = 1000;
  const counted = counting();
  const acl = new DbMonitorAcl(counted, { ttlMs: 5000, now: () => now });
  const u = await user('View');
  await acl.scope(u);
  const n = counted.count;
  now += 4999;
  await acl.scope(u);
  t.is(counted.count, n);
  now += 2;
  await acl.scope(u);
  t.true(counted.count > n);
});
