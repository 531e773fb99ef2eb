// `npm run demo`: the service on an embedded default. Starts a throwaway MariaDB, prepares the
// ZoneMinder database with demo data, and runs the server against it until Ctrl-C.
import { startThrowawayMariaDb } from '../devdb/throwaway-mariadb.js';
import { prepareDemoDatabase } from '../devdb/demo-data.js';

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
  const env: NodeJS.ProcessEnv = {
    APP_PROFILE: 'dev',
    APP_SERVER__ADDR: '127.0.0.1',
    // The demo never reads the host's ZoneMinder or operator configuration.
    APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
    ...process.env,
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
    await stopDb();
    process.stderr.write(`zmgate-demo: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const log = createLogger({ level: loaded.config.log.level });
  logNotices(log, loaded.notices);
  const server = await startServer(loaded.config, log);
  process.stderr.write(`zmgate demo: ${server.url}/api/v3  (explorer: ${server.url}${loaded.config.server.explorer_path}/)\n`);
  const stop = async () => {
    await server.close();
    await stopDb();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
