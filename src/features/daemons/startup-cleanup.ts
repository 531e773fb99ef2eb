// Start-up of takeover mode: leftover ZoneMinder daemons (from zmdc.pl, or from a zmgate that
// crashed) are force-stopped, and stale shared memory of monitors about to start is removed, as
// zmpkg.pl does before it starts anything (docs/zoneminder/daemons.md, "Start-up").
// Unlike zmdc's host-wide `killall <name>`, only processes whose program is one of the
// configured daemon paths are touched: the executable itself (zmc) or, for scripts, the script
// path the interpreter runs (perl /usr/bin/zmfilter.pl …). A same-named program elsewhere
// (another install, a test stand-in) is spared.
import { readdirSync, readFileSync, readlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SupervisionJournal } from './journal.js';

export interface LeftoverProcess {
  pid: number;
  /** The configured daemon path it runs. */
  path: string;
  argv: string[];
}

/** Processes (other than this one) running one of `paths`, read from /proc. */
export function findDaemonProcesses(paths: readonly string[], procDir = '/proc'): LeftoverProcess[] {
  const wanted = new Set(paths);
  const out: LeftoverProcess[] = [];
  for (const entry of readdirSync(procDir)) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let argv: string[];
    let exe: string;
    try {
      argv = readFileSync(join(procDir, entry, 'cmdline'), 'utf8')
        .split('\0')
        .filter((a, i, all) => a !== '' || i < all.length - 1);
      exe = readlinkSync(join(procDir, entry, 'exe'));
    } catch {
      continue; // gone, a kernel thread, or not ours to read
    }
    // The program itself, or the script an interpreter was given (argv[1]; perl -T etc. shift it).
    const candidates = [
      exe.replace(/ \(deleted\)$/, ''),
      argv[0],
      ...argv.slice(1, 3).filter((a) => a.startsWith('/')),
    ];
    const path = candidates.find((c) => c !== undefined && wanted.has(c));
    if (path) out.push({ pid, path, argv });
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** TERM every leftover, wait up to `graceMs`, then KILL what is left. Returns the processes found. */
export async function killLeftovers(
  paths: readonly string[],
  journal: SupervisionJournal,
  graceMs = 1000,
): Promise<LeftoverProcess[]> {
  const found = findDaemonProcesses(paths);
  for (const p of found) {
    journal.record({
      priority: 'warning',
      action: 'startup-kill',
      message: `stopping leftover daemon ${p.argv.join(' ')} (pid ${p.pid})`,
      pid: p.pid,
      extra: { path: p.path },
    });
    try {
      process.kill(p.pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  const deadline = Date.now() + graceMs;
  while (found.some((p) => alive(p.pid)) && Date.now() < deadline) await sleep(50);
  for (const p of found) {
    if (!alive(p.pid)) continue;
    journal.record({
      priority: 'warning',
      action: 'startup-kill',
      message: `leftover daemon pid ${p.pid} ignored TERM; sending KILL`,
      pid: p.pid,
      extra: { path: p.path },
    });
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Removes `<mapDir>/zm.mmap.<id>` of the given monitors (a stale file confuses readers until zmc replaces it). */
export function clearStaleSharedMemory(mapDir: string, monitorIds: Iterable<number>): number {
  let removed = 0;
  for (const id of monitorIds) {
    try {
      unlinkSync(join(mapDir, `zm.mmap.${id}`));
      removed++;
    } catch {
      // absent
    }
  }
  return removed;
}
