// The maintenance scheduler (never two passes of a job at once, status of every pass, errors
// recorded, the legacy-daemon warning) and GET /api/v3/maintenance/status.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findLegacyDaemons } from '../../src/features/maintenance/legacy-daemons.js';
import { MaintenanceScheduler, type JobCounts, type MaintenanceJob } from '../../src/features/maintenance/scheduler.js';
import { startTestApp } from '../helpers/app.js';
import { caller, login } from '../helpers/events.js';
import { capturedLogger, setZmConfig } from '../helpers/maintenance.js';
import { insertUser } from '../helpers/zmdb.js';
import { zmDatabase } from '../helpers/zmdb.js';

function fakeJob(
  run: () => Promise<JobCounts>,
  options: Partial<MaintenanceJob> = {},
): MaintenanceJob & { calls: number } {
  const job = {
    name: 'stats' as const,
    enabled: true,
    legacyDaemon: 'zmstats.pl',
    intervalSeconds: () => 1,
    calls: 0,
    run: () => {
      job.calls += 1;
      return run();
    },
    ...options,
  };
  return job;
}

/** A directory shaped like /proc with the given command lines. */
function fakeProc(cmdlines: string[][]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'zmgate-proc-'));
  cmdlines.forEach((argv, i) => {
    mkdirSync(path.join(root, String(100 + i)));
    writeFileSync(path.join(root, String(100 + i), 'cmdline'), argv.join('\0') + '\0');
  });
  mkdirSync(path.join(root, 'self'));
  return root;
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
};

test('a job never runs twice at once: a second trigger joins the pass in progress', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const job = fakeJob(async () => {
    await gate;
    return { done: 1 };
  });
  const { log } = capturedLogger();
  const scheduler = new MaintenanceScheduler([job], { log, procRoot: fakeProc([]) });
  const a = scheduler.runNow('stats');
  const b = scheduler.runNow('stats');
  t.true(scheduler.status()[0].running);
  release();
  t.deepEqual(await a, { done: 1 });
  t.deepEqual(await b, { done: 1 });
  t.is(job.calls, 1);
  const s = scheduler.status()[0];
  t.like(s, { running: false, runs: 1, last_counts: { done: 1 }, last_error: null });
  t.truthy(s.last_run_started_at);
  t.true((s.last_duration_ms ?? -1) >= 0);
});

test('scheduled passes follow one another (the next is planned when a pass ends); a failing pass records its error and the job keeps running', async (t) => {
  let n = 0;
  const job = fakeJob(async () => {
    n += 1;
    if (n === 1) throw Object.assign(new Error('database went away'), { counts: { partial: 1 } });
    return { pass: n };
  });
  const { log, records } = capturedLogger();
  const scheduler = new MaintenanceScheduler([job], { log, firstRunDelaySeconds: 0, procRoot: fakeProc([]) });
  scheduler.start();
  t.truthy(scheduler.status()[0].next_run_at);
  await until(() => scheduler.status()[0].runs >= 1 && !scheduler.status()[0].running);
  t.like(scheduler.status()[0], { last_error: 'database went away', last_counts: { partial: 1 } });
  t.true(records.some((r) => r.msg === 'maintenance pass failed' && r.job === 'stats'));
  await until(() => scheduler.status()[0].runs >= 2 && !scheduler.status()[0].running);
  t.like(scheduler.status()[0], { last_error: null, last_counts: { pass: 2 } });
  await scheduler.stop();
  t.is(scheduler.status()[0].next_run_at, null);
});

test('a disabled job is never scheduled', async (t) => {
  const job = fakeJob(async () => ({}), { enabled: false });
  const { log } = capturedLogger();
  const scheduler = new MaintenanceScheduler([job], { log, firstRunDelaySeconds: 0, procRoot: fakeProc([]) });
  scheduler.start();
  t.like(scheduler.status()[0], { enabled: false, next_run_at: null });
  await scheduler.stop();
  t.is(job.calls, 0);
});

test('enabling a job while its legacy daemon runs logs a warning naming the daemon', async (t) => {
  const proc = fakeProc([
    ['/usr/bin/perl', '-wT', '/usr/bin/zmaudit.pl', '-c'],
    ['/usr/bin/zmc', '-m', '1'],
    ['/usr/bin/perl', '-wT', '/usr/bin/zmstats.pl'],
  ]);
  t.deepEqual([...findLegacyDaemons(proc)].sort(), ['zmaudit.pl', 'zmstats.pl']);
  const { log, records } = capturedLogger();
  const stats = fakeJob(async () => ({}));
  const telemetry = fakeJob(async () => ({}), { name: 'telemetry', legacyDaemon: 'zmtelemetry.pl' });
  const scheduler = new MaintenanceScheduler([stats, telemetry], { log, firstRunDelaySeconds: 3600, procRoot: proc });
  scheduler.start();
  await scheduler.stop();
  const warnings = records.filter((r) => r.level === 40 && r.daemon);
  t.deepEqual(
    warnings.map((r) => r.daemon),
    ['zmstats.pl'],
  );
  t.regex(warnings[0].msg, /disable zmstats\.pl/);
  t.deepEqual(
    scheduler.status().map((s) => s.legacy_daemon_running),
    [true, false],
  );
});

test('GET /maintenance/status: every job with its settings state, System View required', async (t) => {
  const db = await zmDatabase('maint_status');
  await setZmConfig(db, 'ZM_OPT_USE_AUTH', '1');
  for (const [name, level] of [
    ['sysview', 'View'],
    ['sysnone', 'None'],
  ] as const) {
    await insertUser(db, {
      username: name,
      password: name,
      stored: bcrypt.hashSync(name, 4),
      perms: { System: level },
    });
  }
  const app = await startTestApp({
    db,
    env: { APP_MAINTENANCE__AUDIT__ENABLED: 'true', APP_MAINTENANCE__AUDIT__DRY_RUN: 'true' },
  });
  t.teardown(() => app.close());
  const call = caller(app, await login(app, 'sysview'));
  const res = await call('GET', '/maintenance/status');
  t.is(res.status, 200);
  const byName = Object.fromEntries(res.body.jobs.map((j: { name: string }) => [j.name, j]));
  t.like(byName.stats, { enabled: false, next_run_at: null, runs: 0, last_error: null, legacy_daemon: 'zmstats.pl' });
  t.like(byName.telemetry, { enabled: false, legacy_daemon: 'zmtelemetry.pl' });
  t.deepEqual(Object.keys(byName).sort(), ['audit', 'stats', 'telemetry']);
  t.like(byName.audit, {
    enabled: true,
    legacy_daemon: 'zmaudit.pl',
    filesystem: { enabled: false, disabled_reason: null },
  });
  t.truthy(byName.audit.next_run_at);
  t.is((await call('GET', '/maintenance/status', undefined, await login(app, 'sysnone'))).status, 403);
  t.is((await call('GET', '/maintenance/status', undefined, 'not-a-token')).status, 401);
});

test('an interval that cannot be read (the database away) keeps the last known one, not an hour; never read: a minute', async (t) => {
  let reads = 0;
  const job = fakeJob(async () => ({ pass: 1 }), {
    intervalSeconds: () => {
      reads += 1;
      if (reads === 1) return 2;
      throw new Error('database went away');
    },
  });
  const { log, records } = capturedLogger();
  const scheduler = new MaintenanceScheduler([job], { log, firstRunDelaySeconds: 0, procRoot: fakeProc([]) });
  scheduler.start();
  const plannedIn = () => Date.parse(scheduler.status()[0].next_run_at ?? '') - Date.now();
  await until(() => reads === 2 && scheduler.status()[0].next_run_at !== null);
  t.true(plannedIn() <= 2000, `next pass in ${plannedIn()} ms (the last known 2 s)`);
  t.true(records.some((r) => r.msg === 'maintenance interval unreadable; the next pass keeps the last known interval'));
  await scheduler.stop();

  const never = fakeJob(async () => ({ pass: 1 }), {
    intervalSeconds: () => {
      throw new Error('database went away');
    },
  });
  const other = new MaintenanceScheduler([never], { log, firstRunDelaySeconds: 0, procRoot: fakeProc([]) });
  other.start();
  await until(() => never.calls === 1 && other.status()[0].next_run_at !== null);
  const inMs = Date.parse(other.status()[0].next_run_at ?? '') - Date.now();
  t.true(inMs > 30_000 && inMs <= 60_000, `next pass in ${inMs} ms (a minute)`);
  await other.stop();
});
