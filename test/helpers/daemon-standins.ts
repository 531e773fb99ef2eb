// Stand-in ZoneMinder daemons for supervision tests: small shell scripts in a temporary
// ZM_PATH_BIN, and a journal that keeps the supervision events in memory.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/log.js';
import { SupervisionJournal, type SupervisionEvent } from '../../src/features/daemons/journal.js';
import { Writable } from 'node:stream';

/** A scratch directory holding one executable `#!/bin/sh` script per name. */
export function standInBin(scripts: Record<string, string>, dir = mkdtempSync(join(tmpdir(), 'zmgate-bin-'))): string {
  for (const [name, body] of Object.entries(scripts)) {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
  }
  return dir;
}

/** Runs until stopped; TERM ends it (sh's default); HUP is taken as a reload, as zmc does. */
export const RUNS = "trap 'true' HUP\nwhile :; do sleep 0.05; done";
/** Ignores TERM: only KILL ends it. */
export const IGNORES_TERM = "trap '' TERM\nwhile :; do sleep 0.05; done";

export class RecordingJournal extends SupervisionJournal {
  /** Each event with the time it was recorded (ms). */
  readonly events: Array<SupervisionEvent & { at: number }> = [];

  constructor() {
    super(
      createLogger({ level: 'fatal', stream: new Writable({ write: (_c, _e, done) => done() }) }),
      '/nonexistent/journal.sock',
    );
  }

  override record(event: SupervisionEvent): void {
    this.events.push({ ...event, at: Date.now() });
  }

  of(action: string, daemon?: string): Array<SupervisionEvent & { at: number }> {
    return this.events.filter((e) => e.action === action && (daemon === undefined || e.daemon === daemon));
  }
}

/** Polls until `check` holds (the tests wait for behaviour, never for a fixed time). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
