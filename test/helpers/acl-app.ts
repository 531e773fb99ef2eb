// The app with a chosen monitor ACL in place of the composed one, so row-level filtering can be
// tested before the real ACL rules exist. Same config as startTestApp.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { createPool } from '../../src/db/pool.js';
import { createPrismaClient } from '../../src/db/prisma.js';
import { createServices } from '../../src/app/services.js';
import { createApp } from '../../src/http/app.js';
import { AllowAllMonitorAcl, type MonitorAcl } from '../../src/auth/monitor-acl.js';
import { testEnv } from './app.js';
import type { FreshDatabase } from './mariadb.js';

export interface AclApp {
  api(path: string): string;
  close(): Promise<void>;
}

/** A monitor ACL for tests: `scope` is required; groups are unrestricted unless given. */
export type TestAcl = Pick<MonitorAcl, 'scope'> & Partial<MonitorAcl>;

export async function startAppWithAcl(
  db: FreshDatabase,
  testAcl: TestAcl,
  env: Record<string, string> = {},
): Promise<AclApp> {
  const open = new AllowAllMonitorAcl();
  const acl: MonitorAcl = {
    scope: testAcl.scope,
    groupScope: testAcl.groupScope ?? (() => open.groupScope()),
    invalidate: testAcl.invalidate ?? (() => undefined),
  };
  const { config } = loadConfig({ env: testEnv({ db, env }), defaultOperatorFile: '/nonexistent/prod.toml' });
  const log = createLogger({ level: 'fatal' });
  const pool = createPool(config.db);
  const prisma = createPrismaClient(config.db);
  const services = createServices(config, log, pool, prisma, { acl });
  const server = http.createServer(createApp(services));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    api: (path) => `http://127.0.0.1:${port}/api/v3${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
      await prisma.$disconnect();
    },
  };
}
