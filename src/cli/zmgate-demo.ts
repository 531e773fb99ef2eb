// `npm run demo`: the service on an embedded default. Starts a throwaway MariaDB, prepares the
// ZoneMinder database with demo data, starts a simulated camera (src/sim/) for monitors 1 and 2
// with its stream socket and shared memory in the demo's own directories, and runs the server
// against all of it until Ctrl-C, with the live demo page at /demo/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startThrowawayMariaDb } from '../devdb/throwaway-mariadb.js';
import { prepareDemoDatabase, SIMULATED_MONITOR_IDS } from '../devdb/demo-data.js';
import { SimCamera } from '../sim/camera.js';

/** One simulated camera per demo monitor that has one; directories under `baseDir`. */
export async function startDemoCameras(
  baseDir: string,
): Promise<{ socketDir: string; mapDir: string; cameras: SimCamera[] }> {
  const socketDir = join(baseDir, 'sim', 'socks');
  const mapDir = join(baseDir, 'sim', 'map');
  mkdirSync(socketDir, { recursive: true });
  mkdirSync(mapDir, { recursive: true });
  const cameras: SimCamera[] = [];
  for (const monitorId of SIMULATED_MONITOR_IDS) cameras.push(await SimCamera.start({ monitorId, socketDir, mapDir }));
  return { socketDir, mapDir, cameras };
}

export async function run(argv: string[]): Promise<void> {
  if (argv.length > 0) {
    process.stderr.write('Usage: zmgate-demo   (no options; APP_* variables still apply, e.g. APP_SERVER__PORT)\n');
    process.exitCode = 2;
    return;
  }
  const db = await startThrowawayMariaDb({ log: (line) => process.stderr.write(`[mariadb] ${line}\n`) });
  const stopDb = () => db.stop().catch(() => undefined);
  try {
    await prepareDemoDatabase(db);
  } catch (err) {
    await stopDb();
    throw err;
  }
  process.stderr.write(`demo database: ${db.url('zm', 'zmuser', 'zmpass')}\n`);
  let sim;
  try {
    sim = await startDemoCameras(db.baseDir);
  } catch (err) {
    await stopDb();
    throw err;
  }
  const stopCameras = () => Promise.all(sim.cameras.map((c) => c.stop().catch(() => undefined)));
  process.stderr.write(
    `simulated cameras: monitors ${SIMULATED_MONITOR_IDS.join(', ')} (sockets in ${sim.socketDir}, shared memory in ${sim.mapDir})\n`,
  );
  const env: NodeJS.ProcessEnv = {
    APP_PROFILE: 'dev',
    APP_SERVER__ADDR: '127.0.0.1',
    // The demo never reads the host's ZoneMinder or operator configuration.
    APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
    APP_WEB__DEMO_PAGE: 'true',
    ...process.env,
    APP_ZONEMINDER__PATH_SOCKS: sim.socketDir,
    APP_ZONEMINDER__PATH_MAP: sim.mapDir,
    APP_AUTH__STATE_DIR: `${db.baseDir}/state`,
    APP_DB__HOST: db.host,
    APP_DB__PORT: String(db.port),
    APP_DB__USERNAME: 'zmuser',
    APP_DB__PASSWORD: 'zmpass',
    APP_DB__DATABASE_NAME: 'zm',
  };
  const { loadConfig } = await import('../config/index.js');
  const { createLogger } = await import('../log.js');
  const { startServer, logNotices } = await import('../server.js');
  let loaded;
  try {
    loaded = loadConfig({ env });
  } catch (err) {
    await stopCameras();
    await stopDb();
    process.stderr.write(`zmgate-demo: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const log = createLogger({ level: loaded.config.log.level });
  logNotices(log, loaded.notices);
  const server = await startServer(loaded.config, log);
  process.stderr.write(
    `zmgate demo: ${server.url}/api/v3  (explorer: ${server.url}${loaded.config.server.explorer_path}/)\n`,
  );
  if (loaded.config.web.demo_page) process.stderr.write(`live demo page: ${server.url}/demo/  (admin/admin)\n`);
  const stop = async () => {
    await server.close();
    await stopCameras();
    await stopDb();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
