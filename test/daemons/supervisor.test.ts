// The supervisor with stand-in daemons (shell scripts): zmdc's back-off sequence, exit causes,
// TERM then KILL, reload, a missing binary, and the start-up kill that spares same-named
// programs outside the configured paths. Back-off runs on a shortened second (secondMs).
import { readFileSync } from 'node:fs';
import test from 'ava';
import { spawn } from 'node:child_process';
import { daemonId } from '../../src/features/daemons/daemon-ids.js';
import { describeExit, Supervisor } from '../../src/features/daemons/supervisor.js';
import { versionAtLeast } from '../../src/features/daemons/daemon-manager.js';
import { findDaemonProcesses, killLeftovers } from '../../src/features/daemons/startup-cleanup.js';
import { alive, IGNORES_TERM, RecordingJournal, RUNS, standInBin, until } from '../helpers/daemon-standins.js';
import { join } from 'node:path';

const SECOND_MS = 40;

function supervisor(
  bin: string,
  journal: RecordingJournal,
  extra: { maxRestartDelay?: number; stopGraceMs?: number } = {},
) {
  return new Supervisor({
    binDir: bin,
    journal,
    maxRestartDelay: () => extra.maxRestartDelay ?? 30,
    stopGraceMs: extra.stopGraceMs ?? 2000,
    secondMs: SECOND_MS,
  });
}

test('a crash loop restarts at once, then after 5, 10, 20 s and the cap, as zmdc does', async (t) => {
  const bin = standInBin({ zmc: 'exit 3' });
  const journal = new RecordingJournal();
  const sup = supervisor(bin, journal);
  const id = daemonId('zmc', ['-m', '1']);
  t.is(sup.start(id).kind, 'started');
  await until(() => journal.of('restart', id.key).length >= 7, 'seven restarts');
  await sup.close();
  const delays = journal
    .of('restart', id.key)
    .slice(0, 7)
    .map((e) => e.extra?.delay_seconds);
  t.deepEqual(delays, [0, 5, 10, 20, 30, 30, 30]);
  const exits = journal.of('exit', id.key);
  t.is(exits[0].message, "'zmc -m 1' exited abnormally, exit status 3");
  t.is(exits[0].priority, 'err');
  t.is(exits[0].monitorId, 1);
  // Each restart really waited its delay: the next start comes at least delay × second after the exit.
  const starts = journal.of('start', id.key);
  for (let i = 0; i < 6; i++) {
    const gap = starts[i + 1].at - exits[i].at;
    t.true(gap >= Number(delays[i]) * SECOND_MS - 5, `restart ${i + 1}: ${gap} ms after the exit, delay ${delays[i]}`);
  }
});

test('a daemon that ran longer than ZM_MAX_RESTART_DELAY restarts at once every time', async (t) => {
  // 0.3 s of run time is 7.5 (shortened) seconds, longer than a 2-second cap.
  const bin = standInBin({ 'zmfilter.pl': 'sleep 0.3; exit 1' });
  const journal = new RecordingJournal();
  const sup = supervisor(bin, journal, { maxRestartDelay: 2 });
  sup.start(daemonId('zmfilter.pl', ['--filter_id=1', '--daemon']));
  await until(() => journal.of('restart').length >= 3, 'three restarts');
  await sup.close();
  t.deepEqual(
    journal
      .of('restart')
      .slice(0, 3)
      .map((e) => e.extra?.delay_seconds),
    [0, 0, 0],
  );
});

test('exit causes are worded as zmdc words them', (t) => {
  t.deepEqual(describeExit(null, 'SIGTERM'), { text: 'exited, signal 15', cause: 'exited' });
  t.deepEqual(describeExit(null, 'SIGALRM'), { text: 'exited, signal 14', cause: 'exited' });
  t.deepEqual(describeExit(null, 'SIGSEGV'), { text: 'crashed, signal 11', cause: 'crashed' });
  t.deepEqual(describeExit(2, null), { text: 'exited abnormally, exit status 2', cause: 'exited abnormally' });
  t.deepEqual(describeExit(0, null), { text: 'exited normally', cause: 'exited normally' });
});

test('a real crash by signal is reported as crashed and restarted', async (t) => {
  const bin = standInBin({ zmc: 'kill -SEGV $$' });
  const journal = new RecordingJournal();
  const sup = supervisor(bin, journal);
  sup.start(daemonId('zmc', ['-m', '4']));
  await until(() => journal.of('restart').length >= 1, 'a restart');
  await sup.close();
  t.is(journal.of('exit')[0].message, "'zmc -m 4' crashed, signal 11");
});

test('stop sends TERM; a daemon that ignores TERM gets KILL after the grace and is not restarted', async (t) => {
  const bin = standInBin({ zmc: IGNORES_TERM, 'zmstats.pl': RUNS });
  const journal = new RecordingJournal();
  const sup = supervisor(bin, journal, { stopGraceMs: 400 });
  const stubborn = daemonId('zmc', ['-m', '2']);
  const polite = daemonId('zmstats.pl');
  const a = sup.start(stubborn);
  const b = sup.start(polite);
  t.is(a.kind, 'started');
  t.is(b.kind, 'started');
  // Let the shells install their traps.
  await new Promise((r) => setTimeout(r, 200));
  t.is(sup.stop(polite.key).kind, 'stop-sent');
  t.is(sup.stop(stubborn.key).kind, 'stop-sent');
  t.is(sup.status(stubborn.key)?.state, 'stopping');
  await Promise.all([sup.whenExited(polite.key), sup.whenExited(stubborn.key)]);
  t.is(journal.of('exit', polite.key)[0].message, "'zmstats.pl' exited, signal 15");
  t.is(journal.of('kill', stubborn.key).length, 1);
  t.is(
    journal.of('kill', stubborn.key)[0].message,
    `'zmc -m 2' has not stopped after 0.4 seconds. Sending KILL to pid ${(a as { pid: number }).pid}`,
  );
  t.is(journal.of('exit', stubborn.key)[0].message, "'zmc -m 2' crashed, signal 9");
  t.false(alive((a as { pid: number }).pid));
  t.is(journal.of('restart').length, 0);
  t.is(sup.status(stubborn.key)?.state, 'stopped');
  t.is(sup.stop(stubborn.key).kind, 'not-running');
  await sup.close();
});

test('restart = stop with keep-alive; reload = HUP; already running is reported', async (t) => {
  const bin = standInBin({ zmc: `trap 'echo hup >> "$0.hup"' HUP\n${RUNS}` });
  const journal = new RecordingJournal();
  const sup = supervisor(bin, journal);
  const id = daemonId('zmc', ['-m', '3']);
  const first = sup.start(id) as { pid: number };
  t.is(sup.start(id).kind, 'already-running');
  await new Promise((r) => setTimeout(r, 200));
  t.is(sup.reload(id.key).kind, 'signalled');
  t.true(alive(first.pid), 'HUP does not stop it');
  t.is(sup.restart(id).kind, 'stop-sent');
  await until(() => (sup.status(id.key)?.pid ?? first.pid) !== first.pid, 'a new pid');
  t.is(sup.status(id.key)?.state, 'running');
  t.is(sup.status(id.key)?.restart_count, 1);
  t.false(alive(first.pid));
  const second = sup.status(id.key)!.pid!;
  await sup.close();
  t.false(alive(second), 'close() stops the children');
});

test('a missing binary makes that daemon failed; the others run', async (t) => {
  const bin = standInBin({ 'zmstats.pl': RUNS });
  const journal = new RecordingJournal();
  const sup = supervisor(bin, journal);
  const missing = sup.start(daemonId('zmtrigger.pl'));
  t.deepEqual(missing, { kind: 'failed', message: 'Daemon executable zmtrigger.pl not found' });
  t.is(sup.start(daemonId('zmstats.pl')).kind, 'started');
  t.is(sup.status('zmtrigger.pl')?.state, 'failed');
  t.is(sup.status('zmstats.pl')?.state, 'running');
  t.regex(journal.of('start-failed')[0].message, /zmtrigger\.pl.*ENOENT/);
  await sup.close();
});

test('the start-up kill stops only processes running a configured daemon path', async (t) => {
  const ours = standInBin({ zmc: RUNS, 'zmfilter.pl': IGNORES_TERM });
  const theirs = standInBin({ zmc: RUNS });
  const start = (path: string, ...args: string[]) => spawn(path, args, { stdio: 'ignore', detached: true });
  const leftover = start(join(ours, 'zmc'), '-m', '9');
  const stubborn = start(join(ours, 'zmfilter.pl'), '--filter_id=3', '--daemon');
  const unrelated = start(join(theirs, 'zmc'), '-m', '9');
  // Whatever the assertions do, no stand-in outlives the test (ava would wait for it).
  t.teardown(() => {
    for (const child of [leftover, stubborn, unrelated]) if (alive(child.pid!)) process.kill(child.pid!, 'SIGKILL');
  });
  await new Promise((r) => setTimeout(r, 300));
  const paths = [join(ours, 'zmc'), join(ours, 'zmfilter.pl')];
  // A stand-in shell script forks before each `sleep`; for that instant the child runs the same
  // script too (a child of ours, gone a moment later), so children of the two are not counted.
  const parentOf = (pid: number): number => {
    try {
      return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    } catch {
      return leftover.pid!; // already gone: a transient child
    }
  };
  const found = findDaemonProcesses(paths)
    .map((p) => p.pid)
    .filter((pid) => ![leftover.pid, stubborn.pid].includes(parentOf(pid)))
    .sort();
  t.deepEqual(found, [leftover.pid!, stubborn.pid!].sort());
  const journal = new RecordingJournal();
  await killLeftovers(paths, journal, 500);
  await until(() => !alive(leftover.pid!) && !alive(stubborn.pid!), 'the leftovers to die');
  t.true(alive(unrelated.pid!), 'the same-named program elsewhere is spared');
  // A transient fork of a stand-in (see above) may be found and stopped too; it is not counted.
  const ofTheTwo = journal.of('startup-kill').filter((e) => [leftover.pid, stubborn.pid].includes(e.pid));
  t.is(ofTheTwo.length, 3, 'TERM to both, KILL to the one that ignored it');
});

test('zmc log rotation uses WINCH from ZoneMinder 1.39.22 on', (t) => {
  t.true(versionAtLeast('1.39.22', [1, 39, 22]));
  t.true(versionAtLeast('1.40.0', [1, 39, 22]));
  t.false(versionAtLeast('1.39.21', [1, 39, 22]));
  t.false(versionAtLeast('1.36.33', [1, 39, 22]));
  t.false(versionAtLeast('', [1, 39, 22]));
});
