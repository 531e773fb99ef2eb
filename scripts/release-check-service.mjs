// The service from installed files against a throwaway MariaDB: `zmgate-db up` (which creates the
// database), then `zmgate` until /api/v3/host/getVersion answers. Used by scripts/release-check.sh.
//
// Usage: node scripts/release-check-service.mjs NODE LIBDIR [OPERATOR_FILE]
//   NODE: the node binary to run the installed files with; LIBDIR: the installed package
//   (…/usr/lib/zmgate or …/lib/node_modules/zmgate).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayMariaDb } from '../dist/devdb/throwaway-mariadb.js';

const [node, lib, operatorFile] = process.argv.slice(2);
if (!node || !lib) {
  console.error('usage: node scripts/release-check-service.mjs NODE LIBDIR [OPERATOR_FILE]');
  process.exit(2);
}
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const db = await startThrowawayMariaDb({});
const state = mkdtempSync(join(tmpdir(), 'zmgate-check-'));
let server;
let failed = false;
try {
  // A ZoneMinder-style account that may create `zm` before it exists.
  await db.exec(
    "CREATE USER 'zmuser'@'127.0.0.1' IDENTIFIED BY 'zmpass'; GRANT ALL PRIVILEGES ON `zm`.* TO 'zmuser'@'127.0.0.1'",
  );
  const url = db.url('zm', 'zmuser', 'zmpass');
  const up = spawnSync(node, [join(lib, 'bin', 'zmgate-db.js'), 'up', '-u', url], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  process.stderr.write(
    up.stderr
      .split('\n')
      .filter((l) => !/^\[ *\d+\/\d+\] ok/.test(l))
      .join('\n'),
  );
  process.stdout.write(up.stdout);
  if (up.status !== 0) throw new Error(`zmgate-db up exited ${up.status}`);

  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    APP_PROFILE: 'prod',
    ...(operatorFile ? { APP_CONFIG_FILE: operatorFile } : {}),
    APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
    APP_SERVER__ADDR: '127.0.0.1',
    APP_SERVER__PORT: String(port),
    APP_AUTH__STATE_DIR: state,
    APP_DB__HOST: db.host,
    APP_DB__PORT: String(db.port),
    APP_DB__USERNAME: 'zmuser',
    APP_DB__PASSWORD: 'zmpass',
    APP_DB__DATABASE_NAME: 'zm',
  };
  server = spawn(node, [join(lib, 'bin', 'zmgate.js')], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.on('data', (chunk) => (log += chunk));
  const deadline = Date.now() + 60_000;
  let body;
  while (Date.now() < deadline && server.exitCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v3/host/getVersion`);
      if (res.ok) {
        body = await res.json();
        break;
      }
    } catch {
      // not answering yet: try again
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!body) throw new Error(`the service did not answer /api/v3/host/getVersion:\n${log.slice(-3000)}`);
  console.log(`getVersion: ${JSON.stringify(body)}`);
} catch (error) {
  console.error(`release-check-service: ${error.message}`);
  failed = true;
} finally {
  server?.kill('SIGTERM');
  await db.stop();
  rmSync(state, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
