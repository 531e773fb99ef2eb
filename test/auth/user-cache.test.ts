// The per-request check's cache of a user's row (AuthService): one read shared by concurrent
// requests, re-read in the background past half its age, never older than its bound, and a
// revocation through the API never undone by a read that ran before it.
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { AuthService } from '../../src/auth/auth-service.js';
import { loadOrCreateKeys } from '../../src/auth/keys.js';
import { TokenService } from '../../src/auth/tokens.js';
import { UserDirectory, type UserRecord } from '../../src/auth/user-directory.js';
import { createPool, type DbPool } from '../../src/db/pool.js';
import { createLogger } from '../../src/log.js';
import { dbConfigFor, type FreshDatabase } from '../helpers/mariadb.js';
import { insertUser, zmDatabase } from '../helpers/zmdb.js';

/**
 * Counts reads of a user's row; while `held`, a read's answer (already read from the database)
 * is held back, and `selected` is called once the database has answered.
 */
class WatchedDirectory extends UserDirectory {
  reads = 0;
  held: Promise<void> | null = null;
  selected: (() => void) | null = null;
  override async findById(id: number): Promise<UserRecord | null> {
    this.reads++;
    const held = this.held;
    const user = await super.findById(id);
    this.selected?.();
    if (held) await held;
    return user;
  }
}

let db: FreshDatabase;
let pool: DbPool;
const stateDir = mkdtempSync(join(tmpdir(), 'zmgate-user-cache-'));

test.before(async () => {
  db = await zmDatabase('usercache');
  for (const username of ['poller', 'stale', 'revoked', 'disabled', 'recheck']) {
    await insertUser(db, { username, password: 'x', stored: bcrypt.hashSync('pw', 4), perms: { Events: 'View' } });
  }
  pool = createPool(dbConfigFor(db));
});
test.after.always(async () => pool?.end());

async function signedIn(username: string) {
  let now = Date.now();
  const users = new WatchedDirectory(pool);
  const auth = new AuthService(
    users,
    new TokenService(loadOrCreateKeys(stateDir), { access: 600, refresh: 3600 }),
    createLogger({ level: 'fatal' }),
    () => now,
  );
  const { access_token: token } = await auth.login(username, 'pw');
  return { auth, users, token, advance: (ms: number) => (now += ms) };
}

test('concurrent requests after the row expired share one read of it', async (t) => {
  const { auth, users, token, advance } = await signedIn('poller');
  advance(5_001);
  const answers = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(token)));
  t.is(users.reads, 1);
  t.true(answers.every((u) => u.username === 'poller'));
  await auth.authenticate(token);
  t.is(users.reads, 1, 'the row read is kept');
});

test('past half its age the row is re-read in the background: the request does not wait', async (t) => {
  const { auth, users, token, advance } = await signedIn('stale');
  let release!: () => void;
  users.held = new Promise((r) => (release = r));
  advance(3_000);
  // Answered from the cached row while the re-read is held back.
  t.is((await auth.authenticate(token)).username, 'stale');
  t.is(users.reads, 1);
  await auth.authenticate(token);
  t.is(users.reads, 1, 'one background read at a time');
  users.held = null;
  release();
});

test('a user disabled by another process is refused once the row is past its bound', async (t) => {
  const { auth, token, advance } = await signedIn('disabled');
  await db.db.query("UPDATE Users SET Enabled = 0 WHERE Username = 'disabled'", [], db.name);
  t.is((await auth.authenticate(token)).username, 'disabled', 'within the bound, the cached row');
  advance(5_001);
  await t.throwsAsync(auth.authenticate(token), { message: 'Account disabled or removed' });
});

test('a revocation is not undone by a read that ran before it', async (t) => {
  const { auth, users, token, advance } = await signedIn('revoked');
  advance(5_001);
  let release!: () => void;
  users.held = new Promise((r) => (release = r));
  const selected = new Promise<void>((r) => (users.selected = r));
  // This request's read has the old revocation floor and is held before its answer is used.
  const before = auth.authenticate(token);
  await selected;
  users.held = null;
  users.selected = null;
  const [row] = await db.db.query<{ Id: number }>("SELECT Id FROM Users WHERE Username = 'revoked'", [], db.name);
  await auth.revokeAll(Number(row.Id));
  // A request after the revocation does not join the read in flight...
  await t.throwsAsync(auth.authenticate(token), { message: 'Token revoked' });
  release();
  await before.catch(() => undefined);
  // ...nor is that read's old floor kept once it lands.
  await t.throwsAsync(auth.authenticate(token), { message: 'Token revoked' });
});

test('a recheck with readSince sees a row changed outside the API at once; reads of one recheck are shared', async (t) => {
  const { auth, users, token, advance } = await signedIn('recheck');
  await auth.authenticate(token); // the row is cached now
  // ZoneMinder's own UI disables the user.
  await pool.query("UPDATE Users SET Enabled = 0 WHERE Username = 'recheck'");
  advance(100);
  // A request within the cache's bound still sees the cached row (the API's hot path)...
  await t.notThrowsAsync(auth.authenticate(token));
  // ...a recheck does not: one read for all its checks, at or after its start.
  const since = auth.clock();
  const reads = users.reads;
  const [a, b] = await Promise.allSettled([auth.authenticate(token, since), auth.authenticate(token, since)]);
  t.is(a.status, 'rejected');
  t.is(b.status, 'rejected');
  t.is(users.reads - reads, 1, 'one read shared by the recheck');
  t.regex(String((a as PromiseRejectedResult).reason?.message), /disabled/);
});
