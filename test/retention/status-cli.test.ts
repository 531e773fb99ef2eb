// The operator's views: `zmgate-retention --dry-run` (the same configuration, writes nothing) and
// GET /api/v3/retention/status (System View) with the pass the server runs after start-up.
import test from 'ava';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../../src/cli/zmgate-retention.js';
import { processTimeZone, ZoneClock } from '../../src/db/zone-clock.js';
import { startTestApp, testEnv, type TestApp } from '../helpers/app.js';
import { insertStorage, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { addUser, caller, login } from '../helpers/rest.js';
import { rowChecksums, seedTreeEvent, treeListing, wallDaysBefore } from '../helpers/retention.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let root: string;
let app: TestApp | undefined;
const ids: Record<string, number> = {};
const retentionEnv = {
  APP_RETENTION__MAX_AGE: '30d',
  APP_RETENTION__FREE_SPACE_FLOOR: '',
  APP_RETENTION__INTERVAL_SECONDS: '3600',
};

test.before(async () => {
  db = await zmDatabase('retstatus');
  await addUser(db, 'admin', { System: 'View' });
  await addUser(db, 'nobody', { Events: 'Edit', Monitors: 'View' });
  root = mkdtempSync(path.join(tmpdir(), 'zmgate-retstatus-'));
  mkdirSync(path.join(root, 'main'));
  await insertStorage(db, { id: 1, path: path.join(root, 'main') });
  await sql(db, "UPDATE Storage SET Name = 'Main' WHERE Id = 1");
  const now = new ZoneClock(processTimeZone()).now();
  for (const [name, days] of [
    ['old', 45],
    ['older', 50],
    ['young', 3],
  ] as const) {
    const start = wallDaysBefore(now, days);
    ids[name] = (
      await seedTreeEvent(db, path.join(root, 'main'), { monitorId: 1, storageId: 1, start, end: start })
    ).id;
  }
});
test.after.always(async () => app?.close());

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s), isTTY: false },
      env,
    },
  };
}

test.serial('zmgate-retention --dry-run prints what would go and why, and writes nothing at all', async (t) => {
  const rows = await rowChecksums(db);
  const tree = treeListing(root);
  const cli = io(testEnv({ db, env: retentionEnv }));
  t.is(await run(['--dry-run'], cli.io), 0, cli.err.join(''));
  const text = cli.out.join('');
  t.regex(text, new RegExp(`would delete event ${ids.older} \\(monitor 1, storage 1, .*\\): max_age`));
  t.regex(text, new RegExp(`would delete event ${ids.old} `));
  t.notRegex(text, new RegExp(`event ${ids.young} `));
  t.regex(text, /storage 1 "Main" .*max_age="30d"/);
  t.regex(text, /total: 2 events/);
  const json = io(testEnv({ db, env: retentionEnv }));
  t.is(await run(['--dry-run', '--json'], json.io), 0);
  const report = JSON.parse(json.out.join(''));
  t.deepEqual(
    report.deletions.map((d: any) => d.event_id),
    [ids.older, ids.old],
  );
  t.true(report.dry_run);
  t.deepEqual(await rowChecksums(db), rows, 'no row changed');
  t.deepEqual(treeListing(root), tree, 'no file changed');
});

test.serial('zmgate-retention: usage errors exit 2, a bad limit exits 1 naming the key', async (t) => {
  const a = io(testEnv({ db }));
  t.is(await run([], a.io), 2);
  t.regex(a.err.join(''), /--dry-run is required/);
  const b = io(testEnv({ db, env: { APP_RETENTION__MAX_AGE: 'forever' } }));
  t.is(await run(['--dry-run'], b.io), 1);
  t.regex(b.err.join(''), /retention\.max_age|APP_RETENTION__MAX_AGE/);
});

test.serial('zmgate-retention draws a progress bar on a TTY only', async (t) => {
  const tty = io(testEnv({ db, env: retentionEnv }));
  (tty.io.stderr as { isTTY?: boolean }).isTTY = true;
  t.is(await run(['--dry-run'], tty.io), 0);
  t.regex(tty.err.join(''), /\r\[[#.]{30}\] storage 1\/1 "Main": \d+ events/);
  const pipe = io(testEnv({ db, env: retentionEnv }));
  t.is(await run(['--dry-run'], pipe.io), 0);
  t.false(pipe.err.join('').includes('\r'));
});

test.serial(
  'the server runs a pass after start-up; GET /retention/status shows limits, figures, the last pass and the next run',
  async (t) => {
    app = await startTestApp({
      db,
      env: {
        ...retentionEnv,
        APP_RETENTION__ENABLED: 'true',
        APP_ZONEMINDER__DIR_EVENTS: root,
        APP_AUTH__RATE_LIMIT__ENABLED: 'false',
      },
    });
    const call = caller(app, await login(app, 'admin'));
    let status: any;
    for (let i = 0; i < 100; i++) {
      status = (await call('GET', '/retention/status')).body;
      if (status.last_pass) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    t.truthy(status.last_pass, 'a pass ran after start-up');
    t.like(status, { enabled: true, interval_seconds: 3600, running: false });
    t.like(status.last_pass, { outcome: 'completed', deleted: 2, dry_run: false });
    const next = Date.parse(status.next_run);
    t.true(next > Date.now() + 3000 * 1000 && next <= Date.now() + 3600 * 1000, status.next_run);
    const main = status.storages.find((s: any) => s.storage_id === 1);
    t.like(main, {
      name: 'Main',
      state: 'ok',
      limits: { max_age: '30d', free_space_floor: '', quota: '' },
      override: null,
    });
    t.true(main.measured.free_bytes > 0 && main.measured.total_bytes >= main.measured.free_bytes);
    t.is(main.measured.events, 1);
    t.is((await sql(db, 'SELECT COUNT(*) AS n FROM Events WHERE Id IN (?, ?)', [ids.old, ids.older]))[0].n, 0);
    const line = app.logs.find((l) => l.msg === 'retention: event deleted' && l.event_id === ids.older);
    t.like(line, { monitor_id: 1, storage_id: 1, limit: 'max_age' });
  },
);

test.serial('GET /retention/status needs System permission and a token', async (t) => {
  t.truthy(app);
  const nobody = caller(app!, await login(app!, 'nobody'));
  const denied = await nobody('GET', '/retention/status');
  t.is(denied.status, 403);
  t.is(denied.body.kind, 'PERMISSION_DENIED_ERROR');
  const anon = await fetch(app!.api('/retention/status'));
  t.is(anon.status, 401);
});
