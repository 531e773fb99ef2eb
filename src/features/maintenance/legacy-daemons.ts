// Finds ZoneMinder's Perl daemons in the process list. zmdc starts them as
// `/usr/bin/perl -wT /usr/bin/zmstats.pl` (or runs the script directly), so any argument whose
// base name is the daemon's counts. Read from /proc: works whether or not zmdc is reachable.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const LEGACY_DAEMONS = ['zmstats.pl', 'zmaudit.pl', 'zmtelemetry.pl'] as const;

/** The legacy daemon names seen running. Unreadable processes are skipped. */
export function findLegacyDaemons(procRoot = '/proc'): Set<string> {
  const found = new Set<string>();
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return found;
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(path.join(procRoot, pid, 'cmdline'), 'latin1');
    } catch {
      continue;
    }
    for (const arg of cmdline.split('\0').slice(0, 4)) {
      const base = path.basename(arg);
      if ((LEGACY_DAEMONS as readonly string[]).includes(base)) found.add(base);
    }
  }
  return found;
}
