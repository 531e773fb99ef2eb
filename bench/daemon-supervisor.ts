// Takeover mode at 64 cameras: the supervisor's own CPU and RSS while it supervises 64 stand-in
// zmcs (shell scripts that sleep) for a minute, with the reconcile loop (every 3 s) and the hang
// detector running; and the time from `INSERT INTO Monitors` to that monitor's zmc running.
// In-process (the supervisor without the HTTP side), so the CPU is the supervisor's own; the
// stand-ins' CPU is not counted.
// Run: npx tsx bench/daemon-supervisor.ts [seconds=60]
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mariadb';
import { loadConfig } from '../src/config/index.js';
import { createPool } from '../src/db/pool.js';
import { convergeSchema } from '../src/db/converge/index.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { DaemonManager } from '../src/features/daemons/daemon-manager.js';
import { createLogger } from '../src/log.js';
import { Writable } from 'node:stream';
import { report } from './_results.js';

const SECONDS = Number(process.argv[2] ?? 60);
const CAMERAS = 64;

async function main(): Promise<void> {
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  const root = mkdtempSync(join(tmpdir(), 'zmbench-daemons-'));
  let manager: DaemonManager | undefined;
  try {
    const database = 'zm_bench_daemons';
    const conn = await createConnection(db.connectionConfig());
    await conn.query(`CREATE DATABASE ${database}`);
    await conn.query(`USE ${database}`);
    await convergeSchema(conn, { database });
    for (let i = 1; i <= CAMERAS; i++)
      await conn.query("INSERT INTO Monitors (Id, Name, Type, Capturing) VALUES (?, ?, 'Ffmpeg', 'Always')", [
        i,
        `Cam ${i}`,
      ]);
    const bin = join(root, 'bin');
    mkdirSync(bin);
    for (const name of ['zmc', 'zmstats.pl']) {
      writeFileSync(join(bin, name), "#!/bin/sh\ntrap 'true' HUP\nwhile :; do sleep 1; done\n");
      chmodSync(join(bin, name), 0o755);
    }
    const { config } = loadConfig({
      env: {
        APP_PROFILE: 'test',
        APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
        APP_DB__HOST: db.host,
        APP_DB__PORT: String(db.port),
        APP_DB__USERNAME: 'root',
        APP_DB__PASSWORD: '',
        APP_DB__DATABASE_NAME: database,
        APP_DAEMON__ENABLED: 'true',
        APP_DAEMON__BIN_DIR: bin,
        APP_DAEMON__SHIM_ENABLED: 'false',
        APP_DAEMON__JOURNAL_SOCKET: join(root, 'no-journal.sock'),
        APP_ZONEMINDER__PATH_SOCKS: root,
        APP_ZONEMINDER__PATH_MAP: root,
      },
      defaultOperatorFile: '/nonexistent/prod.toml',
    });
    const log = createLogger({ level: 'fatal', stream: new Writable({ write: (_c, _e, done) => done() }) });
    const pool = createPool(config.db);
    manager = new DaemonManager({ config, log, pool });
    const t0 = performance.now();
    await manager.run();
    const running = () => manager!.list().filter((d) => d.state === 'running').length;
    while (running() < CAMERAS + 1) await new Promise((r) => setTimeout(r, 20));
    const startupMs = performance.now() - t0;

    const cpu0 = process.cpuUsage();
    const w0 = performance.now();
    let rssMax = 0;
    while (performance.now() - w0 < SECONDS * 1000) {
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
      await new Promise((r) => setTimeout(r, 500));
    }
    const cpu = process.cpuUsage(cpu0);
    const cpuPercent = ((cpu.user + cpu.system) / 1000 / (performance.now() - w0)) * 100;

    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = 1000 + i;
      const t = performance.now();
      await conn.query("INSERT INTO Monitors (Id, Name, Type, Capturing) VALUES (?, ?, 'Ffmpeg', 'Always')", [
        id,
        `New ${id}`,
      ]);
      while (manager.status(`zmc -m ${id}`)?.state !== 'running') await new Promise((r) => setTimeout(r, 10));
      latencies.push(performance.now() - t);
    }
    await conn.end();
    latencies.sort((a, b) => a - b);

    console.log(`\n| ${CAMERAS} stand-in zmcs, ${SECONDS} s | value |`);
    console.log('|---|---:|');
    console.log(
      `| start-up of ${CAMERAS + 1} daemons (staggered ${config.daemon.start_stagger_ms} ms) | ${(startupMs / 1000).toFixed(1)} s |`,
    );
    console.log(
      `| supervisor CPU (reconcile every ${config.daemon.reconcile_interval_secs} s, hang check) | ${cpuPercent.toFixed(2)} % of one core |`,
    );
    console.log(`| supervisor RSS (max) | ${(rssMax / 1048576).toFixed(1)} MiB |`);
    console.log(`| INSERT INTO Monitors → zmc running, median of 5 | ${(latencies[2] / 1000).toFixed(2)} s |`);
    console.log(`| INSERT INTO Monitors → zmc running, max of 5 | ${(latencies[4] / 1000).toFixed(2)} s |`);
    report(
      { measure: `daemon supervisor, ${CAMERAS} zmcs`, unit: '% of one core', value: cpuPercent },
      { measure: `daemon supervisor, ${CAMERAS} zmcs`, unit: 'MiB RSS', value: rssMax / 1048576, decimals: 1 },
      {
        measure: 'INSERT INTO Monitors → zmc running (median)',
        unit: 's',
        value: latencies[2] / 1000,
        target: {
          max: config.daemon.reconcile_interval_secs + 1,
          label: `≤ ${config.daemon.reconcile_interval_secs + 1} s`,
        },
      },
    );
    await pool.end();
  } finally {
    await manager?.close();
    await db.stop?.();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
