// Retention on a big install: a throwaway MariaDB with N events on 50 monitors
// (bench/_generate-events.ts, default 1,000,000), a quota set so that exactly D of them must go
// (default 10,000; their folders exist on disk, the rest are rows only), then:
//   1. a pass that deletes D events: seconds, events/s, database statements per deleted event
//      (the server's Questions counter; nothing else talks to it), peak RSS during the pass;
//   2. a pass right after it that deletes nothing (every limit holds): seconds and statements;
//   3. a dry run over the same state.
//
//   npx tsx bench/retention-pass.ts [--events N] [--delete D] [--buffer-pool-mb M]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { AppConfig } from '../src/config/types.js';
import { loadConfig } from '../src/config/index.js';
import { createPrismaClient } from '../src/db/prisma.js';
import { processTimeZone, ZoneClock } from '../src/db/zone-clock.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { RetentionPass, type PassReport } from '../src/features/retention/retention-pass.js';
import { createLogger } from '../src/log.js';
import { EventDeletion } from '../src/zm/event-deletion.js';
import { eventPaths } from '../src/zm/event-paths.js';
import { generateEvents } from './_generate-events.js';
import { report } from './_results.js';
import { serviceEnv } from './_service.js';
import { numberFlag } from './_args.js';

const EVENTS = numberFlag('events', 1_000_000);
const DELETE = numberFlag('delete', 10_000);
const BUFFER_POOL_MB = numberFlag('buffer-pool-mb', 512);

async function main(): Promise<void> {
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  try {
    const gen = await generateEvents(db, 'zm_bench', {
      events: EVENTS,
      bufferPoolBytes: BUFFER_POOL_MB * 1024 * 1024,
      log: (l) => console.log(`# ${l}`),
    });
    await db.createUser('bench', 'bench-pass', gen.database);
    const root = mkdtempSync(path.join(tmpdir(), 'zmgate-bench-retention-'));
    await db.query('UPDATE Storage SET Path = ? WHERE Id = 1', [root], gen.database);
    for (let m = 1; m <= gen.monitors; m++) mkdirSync(path.join(root, String(m)));

    // The quota that makes exactly DELETE of the oldest deletable events go.
    const oldest = await db.query<{ Id: number; MonitorId: number; StartDateTime: string; DiskSpace: number }>(
      `SELECT Id, MonitorId, StartDateTime, DiskSpace FROM Events WHERE StorageId = 1 AND Archived = 0 AND Locked = 0 AND EndDateTime IS NOT NULL ORDER BY StartDateTime, Id LIMIT ${DELETE}`,
      [],
      gen.database,
    );
    const [{ total }] = await db.query<{ total: number }>(
      'SELECT SUM(DiskSpace) AS total FROM Events WHERE StorageId = 1',
      [],
      gen.database,
    );
    const freed = oldest.reduce((n, r) => n + Number(r.DiskSpace), 0);
    const quota = Number(total) - freed;
    // Their folders, as zmc leaves them (Medium scheme), with a small file each.
    const t0 = performance.now();
    for (const r of oldest) {
      const start = new Date(`${String(r.StartDateTime).replace(' ', 'T')}Z`);
      const dir = eventPaths(
        { id: r.Id, monitorId: r.MonitorId, startDateTime: start, scheme: 'Medium' },
        root,
      ).eventDir;
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${r.Id}-video.mp4`), 'x'.repeat(512));
    }
    console.log(
      `# ${oldest.length} event folders written in ${Math.round(performance.now() - t0)} ms; quota ${quota} bytes`,
    );

    const { config } = loadConfig({ env: serviceEnv(db, gen.database), defaultOperatorFile: '/nonexistent/prod.toml' });
    const prisma = createPrismaClient(config.db);
    // Deletion log lines are formatted as in production, then dropped.
    const log = createLogger({ level: 'info', stream: new Writable({ write: (_c, _e, done) => done() }) });
    const clock = new ZoneClock(processTimeZone());
    const retention: AppConfig['retention'] = {
      enabled: true,
      interval_seconds: 300,
      free_space_floor: '',
      max_age: '',
      quota: String(quota),
      overrides: [],
    };
    const deps = { prisma, config: retention, defaultEventsDir: root, log, clock: async () => clock };
    const questions = async () =>
      Number((await db.query<{ Value: string }>("SHOW GLOBAL STATUS LIKE 'Questions'"))[0].Value);

    const measure = async (name: string, run: () => Promise<PassReport>) => {
      let peak = process.memoryUsage().rss;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      const q0 = await questions();
      const s0 = performance.now();
      const result = await run();
      const seconds = (performance.now() - s0) / 1000;
      const statements = (await questions()) - q0 - 1; // minus the SHOW STATUS itself
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      return { name, result, seconds, statements, peakMb: peak / 2 ** 20 };
    };

    await prisma.$queryRawUnsafe('SELECT 1'); // connect outside the measurement
    const rows = [
      await measure(`pass deleting ${DELETE}`, () =>
        new RetentionPass({ ...deps, deletion: new EventDeletion(prisma, root, log) }).run(),
      ),
      await measure('pass deleting nothing', () =>
        new RetentionPass({ ...deps, deletion: new EventDeletion(prisma, root, log) }).run(),
      ),
      await measure('dry run (nothing to do)', () =>
        new RetentionPass({ ...deps, deletion: null }).run({ dryRun: true }),
      ),
    ];
    await prisma.$disconnect();

    console.log(
      `\nRetention pass over ${EVENTS.toLocaleString('en')} events (${gen.monitors} monitors), quota limit\n`,
    );
    console.log(
      '| case | deleted | seconds | events/s | DB statements | statements per deleted event | peak RSS (MiB) | outcome |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---|');
    for (const r of rows) {
      const d = r.result.deleted;
      console.log(
        `| ${r.name} | ${d} | ${r.seconds.toFixed(2)} | ${d ? (d / r.seconds).toFixed(0) : '—'} | ${r.statements} | ${d ? (r.statements / d).toFixed(1) : '—'} | ${r.peakMb.toFixed(0)} | ${r.result.outcome} |`,
      );
    }
    if (rows[0].result.deleted !== oldest.length)
      console.log(`\n! expected ${oldest.length} deletions, got ${rows[0].result.deleted}`);
    report(
      { measure: `retention: delete ${DELETE} of ${EVENTS} events`, unit: 's', value: rows[0].seconds },
      {
        measure: 'retention: statements per deleted event',
        unit: 'statements',
        value: rows[0].statements / Math.max(1, rows[0].result.deleted),
        decimals: 1,
      },
      { measure: 'retention: peak RSS during the pass', unit: 'MiB', value: rows[0].peakMb, decimals: 0 },
      {
        measure: `retention: pass deleting nothing (${EVENTS} events)`,
        unit: 's',
        value: rows[1].seconds,
        decimals: 3,
      },
    );
  } finally {
    await db.stop();
  }
}

await main();
