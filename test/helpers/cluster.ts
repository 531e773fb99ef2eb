// Multi-server tests: several zmgate apps in one process on one database, each a different
// ZoneMinder server (Servers rows on loopback, cluster.server_id set), with its own key files.
import { ClusterService } from '../../src/infra/cluster/cluster-service.js';
import { startTestApp, type TestApp } from './app.js';
import type { FreshDatabase } from './mariadb.js';

export interface ClusterHost {
  id: number;
  name: string;
}

/** Inserts the Servers rows (Hostname 127.0.0.1) for the hosts. */
export async function insertServers(db: FreshDatabase, hosts: ClusterHost[]): Promise<void> {
  for (const h of hosts) {
    await db.db.query(
      "INSERT INTO Servers (Id, Name, Protocol, Hostname, Port) VALUES (?, ?, 'http', '127.0.0.1', 80)",
      [h.id, h.name],
      db.name,
    );
  }
}

/** Starts one app as server `id`; `env` adds to (or overrides) the test settings. */
export function startHost(db: FreshDatabase, id: number, env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({ db, env: { APP_CLUSTER__SERVER_ID: String(id), APP_CLUSTER__REFRESH_SECS: '1', ...env } });
}

/**
 * Starts the hosts together and waits until each knows every other one's address. A host re-reads
 * the published URLs every `refresh_secs`: one that read them just before another published has
 * that host without an address until its next read, which a test's first request may beat.
 */
export async function startHosts(
  db: FreshDatabase,
  hosts: Array<{ id: number; env?: Record<string, string> }>,
): Promise<TestApp[]> {
  const apps = await Promise.all(hosts.map((h) => startHost(db, h.id, h.env)));
  const knowsAll = async (app: TestApp, i: number) => {
    const peers = await app.services.get(ClusterService).currentPeers();
    return apps.every(
      (other, j) => j === i || peers.some((p) => p.id === hosts[j].id && p.url.startsWith(`${other.url}/`)),
    );
  };
  await until(
    async () => (await Promise.all(apps.map(knowsAll))).every(Boolean),
    'every host knowing the others’ addresses',
  );
  return apps;
}

/** Polls `check` until it returns true (no fixed sleeps with an expected outcome). */
export async function until(check: () => Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
