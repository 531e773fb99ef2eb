// `zmgate-retention --dry-run`: what a retention pass would delete now, and why, with the same
// configuration as the server (zm.conf -> TOML -> APP_*). It writes nothing at all: no row, no
// file, no log record in the database; progress goes to stderr (a bar on a TTY), the plan to
// stdout (`--json` for the whole report).
//
// Exit codes: 0 done, 1 failed (configuration, database), 2 usage.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.js';
import { createPrismaClient } from '../db/prisma.js';
import { RetentionPass, type PassProgress, type PassReport } from '../features/retention/retention-pass.js';
import { zoneMinderClock } from '../zm/event-time.js';
import { createLogger } from '../log.js';
import { SERVICE_VERSION } from '../version.js';

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const USAGE = `Usage: zmgate-retention --dry-run [--json] [--verbose]

Shows what one recording-retention pass would delete now, per Storage, and which limit
(free_space_floor, quota, max_age) makes it do so. Reads the server's configuration
(retention.* in /etc/zmgate/prod.toml, APP_* variables) and ZoneMinder's database; writes nothing.
Passes that delete run inside the server when retention.enabled is true.

Options:
  --dry-run      required: plan only
  --json         print the whole report as JSON
  -v, --verbose  log every decision (JSON lines on stderr)
  -h, --help     this text
  -V, --version  the version
`;

export interface RetentionCliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

export function formatBytes(n: number | null): string {
  if (n === null) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${n < 0 ? '-' : ''}${i ? v.toFixed(1) : v} ${units[i]}`;
}

function progressBar(io: RetentionCliIo) {
  if (!io.stderr.isTTY) return undefined;
  let lastDraw = 0;
  return (p: PassProgress) => {
    const now = Date.now();
    if (now - lastDraw < 100 && p.fraction !== 1) return;
    lastDraw = now;
    const width = 30;
    const f = p.fraction ?? 0;
    const bar = '#'.repeat(Math.round(f * width)).padEnd(width, '.');
    const line = `[${bar}] storage ${p.index + 1}/${p.count} ${JSON.stringify(p.storage.name)}: ${p.storage.deleted} events, ${formatBytes(p.storage.bytes_freed)}`;
    io.stderr.write(`\r${line.slice(0, Math.max(20, (io.stderr.columns ?? 100) - 1))}\x1b[K`);
  };
}

export function formatPlan(report: PassReport): string {
  const lines: string[] = [];
  for (const d of report.deletions) {
    const why =
      d.limit === 'free_space_floor'
        ? `free ${formatBytes(d.free_bytes_before)} < floor ${formatBytes(d.floor_bytes)}`
        : d.limit === 'quota'
          ? `used ${formatBytes(d.used_bytes_before)} > quota ${formatBytes(d.quota_bytes)}`
          : `started before ${d.age_cutoff}`;
    lines.push(
      `would delete event ${d.event_id} (monitor ${d.monitor_id}, storage ${d.storage_id}, started ${d.start}, ${formatBytes(d.bytes)}): ${d.limit}, ${why}`,
    );
  }
  for (const s of report.storages) {
    const figures = `free ${formatBytes(s.measured.free_bytes)} of ${formatBytes(s.measured.total_bytes)}, floor ${formatBytes(s.measured.floor_bytes)}, used ${formatBytes(s.measured.used_bytes)}`;
    const limits = `free_space_floor=${JSON.stringify(s.limits.free_space_floor)} max_age=${JSON.stringify(s.limits.max_age)} quota=${JSON.stringify(s.limits.quota)}`;
    const state =
      s.state === 'ok'
        ? `${s.deleted} events, ${formatBytes(s.bytes_freed)}${s.breached.length ? `; still breached: ${s.breached.join(', ')}` : ''}`
        : `${s.state}: ${s.reason}`;
    lines.push(`storage ${s.storage_id} ${JSON.stringify(s.name)} (${s.path}) ${limits}; ${figures}; ${state}`);
  }
  lines.push(
    `total: ${report.deleted} events, ${formatBytes(report.bytes_freed)} would be deleted${report.outcome === 'aborted' ? ` (stopped: ${report.error})` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

export async function run(argv: string[], io?: RetentionCliIo): Promise<number> {
  const streams: RetentionCliIo = io ?? { stdout: process.stdout, stderr: process.stderr, env: process.env };
  const code = await main(argv, streams).catch((err: Error) => {
    streams.stderr.write(`zmgate-retention: ${err.message.split('\n')[0]}\n`);
    return EXIT.failure;
  });
  if (!io) process.exitCode = code;
  return code;
}

async function main(argv: string[], io: RetentionCliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        'dry-run': { type: 'boolean' },
        json: { type: 'boolean' },
        verbose: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    }));
  } catch (err) {
    io.stderr.write(`zmgate-retention: ${(err as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (values.version) {
    io.stdout.write(`${SERVICE_VERSION}\n`);
    return EXIT.ok;
  }
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (!values['dry-run']) {
    io.stderr.write(`zmgate-retention: --dry-run is required (passes that delete run in the server)\n\n${USAGE}`);
    return EXIT.usage;
  }
  const { config } = loadConfig({ env: io.env });
  const log = createLogger({ level: values.verbose ? 'debug' : 'warn', stream: io.stderr as NodeJS.WritableStream });
  const prisma = createPrismaClient(config.db);
  try {
    const pass = new RetentionPass({
      prisma,
      config: config.retention,
      defaultEventsDir: config.zoneminder.dir_events,
      log,
      clock: zoneMinderClock(prisma, log),
      deletion: null,
    });
    const onProgress = progressBar(io);
    const report = await pass.run({ dryRun: true, onProgress });
    if (onProgress) io.stderr.write('\r\x1b[K');
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatPlan(report));
    return report.outcome === 'completed' ? EXIT.ok : EXIT.failure;
  } finally {
    await prisma.$disconnect().catch(() => undefined);
  }
}
