// Multi-server: two hosts started from the same key files (a cloned disk or VM image, a shared
// state directory) publish under the same key ids and overwrite each other's rows (issue 36,
// item 8). Each host says so in one warning naming both servers: the host that starts second
// at its start, the first one at its next refresh.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import test from 'ava';

import { ClusterService } from '../../../src/infra/cluster/cluster-service.js';
import type { TestApp } from '../../helpers/app.js';
import { insertServers, startHost, until } from '../../helpers/cluster.js';
import type { FreshDatabase } from '../../helpers/mariadb.js';
import { zmDatabase } from '../../helpers/zmdb.js';

const SAME_KEYS = /present the same token keys/;
const stateA = mkdtempSync(join(tmpdir(), 'zmgate-same-keys-a-'));
const stateB = mkdtempSync(join(tmpdir(), 'zmgate-same-keys-b-'));
let db: FreshDatabase;
let a: TestApp;
let b: TestApp;

test.before(async () => {
  db = await zmDatabase('cluster_same_keys');
  await insertServers(db, [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'bravo' },
  ]);
  a = await startHost(db, 1, { APP_AUTH__STATE_DIR: stateA });
  // B is a clone of A's disk: the same key files.
  cpSync(stateA, stateB, { recursive: true });
  b = await startHost(db, 2, { APP_AUTH__STATE_DIR: stateB });
});

test.after.always(async () => {
  await Promise.all([a?.close(), b?.close()]);
  rmSync(stateA, { recursive: true, force: true });
  rmSync(stateB, { recursive: true, force: true });
});

const warnings = (app: TestApp) => app.logs.filter((l) => l.level === 40 && SAME_KEYS.test(String(l.msg)));

test('both hosts warn, once each, naming both servers', async (t) => {
  t.is(a.services.get(ClusterService).self?.Id, 1);
  t.is(b.services.get(ClusterService).self?.Id, 2);
  // B saw A's rows before publishing over them: at its start.
  t.is(warnings(b).length, 1);
  t.like(warnings(b)[0], { server_id: 2, server_name: 'bravo', other_server_id: 1, other_server_name: 'alpha' });
  // A finds B's rows under its own key ids at its next refresh (refresh_secs = 1).
  await until(async () => warnings(a).length > 0, "host A's warning");
  t.like(warnings(a)[0], { server_id: 1, server_name: 'alpha', other_server_id: 2, other_server_name: 'bravo' });
  for (const w of [...warnings(a), ...warnings(b)]) {
    t.regex(String(w.msg), /alpha/);
    t.regex(String(w.msg), /bravo/);
  }
  // Later refreshes do not repeat it.
  await a.services.get(ClusterService).refresh();
  await b.services.get(ClusterService).refresh();
  await new Promise((r) => setTimeout(r, 2500));
  t.is(warnings(a).length, 1);
  t.is(warnings(b).length, 1);
});

test('each host still forwards to the other at the other’s own URL', async (t) => {
  // Both refresh after both published: the URLs come from the rows each server owns, not from
  // the key rows the clone overwrote.
  await a.services.get(ClusterService).refresh();
  await b.services.get(ClusterService).refresh();
  const peerOf = async (app: TestApp, id: number) =>
    (await app.services.get(ClusterService).currentPeers()).find((p) => p.id === id);
  t.is((await peerOf(b, 1))?.url, `${a.url}/api/v3`);
  t.is((await peerOf(a, 2))?.url, `${b.url}/api/v3`);
});
