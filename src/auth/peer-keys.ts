// Multi-server installs: the public token keys of the other hosts, read by key id from the
// zmgate_cluster_keys table (each host publishes its own at start-up; see
// docs/operations/multi-server.md). A key id is a hash of the key, so a key found is cached for
// good; a key id not found is remembered for a short while, so tokens with made-up key ids cost at
// most one query per id per interval.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { AppConfig } from '../config/types.js';
import type { SigningKey, TokenKeys } from './keys.js';

/** A multi-server install names this host (an id, a name); otherwise everything stays single-server. */
export function isMultiServer(config: Pick<AppConfig, 'cluster' | 'daemon'>): boolean {
  return config.cluster.server_id > 0 || config.cluster.server_name !== '' || config.daemon.server_host !== '';
}

export type KeyKind = 'access' | 'refresh';

/** What the store needs of the pool (a mariadb Pool fits). */
export interface KeyQueryable {
  query(sql: string, values?: unknown[]): Promise<unknown>;
}

const MISS_TTL_MS = 10_000;
const CACHE_MAX = 256;
const TABLE = 'zmgate_cluster_keys';
/**
 * The key id of the row holding a server's own published URL. Rows under key ids are shared by
 * hosts started from the same key files (one overwrites the other); this one is the server's alone.
 */
export const serverRowKid = (serverId: number): string => `server:${serverId}`;
const SERVER_ROW = /^server:/;

export interface PublishedHost {
  serverId: number | null;
  serverName: string;
  apiUrl: string;
}

export class PeerKeyStore {
  readonly #found = new Map<string, { kind: KeyKind; key: KeyObject }>();
  readonly #missed = new Map<string, number>();
  readonly #pending = new Map<string, Promise<{ kind: KeyKind; key: KeyObject } | null>>();

  constructor(
    private readonly db: KeyQueryable,
    private readonly now: () => number = Date.now,
  ) {}

  /** The published key of this kind with this id, or null (unknown, wrong kind, or the table is unreadable). */
  async key(kid: string, kind: KeyKind): Promise<KeyObject | null> {
    if (SERVER_ROW.test(kid)) return null; // a URL row, not a key id any host signs with
    const hit = this.#found.get(kid) ?? (await this.#load(kid));
    return hit && hit.kind === kind ? hit.key : null;
  }

  #load(kid: string): Promise<{ kind: KeyKind; key: KeyObject } | null> {
    const missedAt = this.#missed.get(kid);
    if (missedAt !== undefined && this.now() - missedAt < MISS_TTL_MS) return Promise.resolve(null);
    let pending = this.#pending.get(kid);
    if (!pending) {
      pending = (async () => {
        try {
          const rows = (await this.db.query(`SELECT kind, public_key FROM ${TABLE} WHERE kid = ?`, [kid])) as Array<{
            kind: KeyKind;
            public_key: string;
          }>;
          const row = rows[0];
          if (!row) throw new Error('unknown key id');
          const entry = { kind: row.kind, key: createPublicKey(row.public_key) };
          if (this.#found.size >= CACHE_MAX) this.#found.clear();
          this.#found.set(kid, entry);
          return entry;
        } catch {
          if (this.#missed.size >= CACHE_MAX) this.#missed.clear();
          this.#missed.set(kid, this.now());
          return null;
        } finally {
          this.#pending.delete(kid);
        }
      })();
      this.#pending.set(kid, pending);
    }
    return pending;
  }

  /**
   * The other servers whose published rows carry one of these key ids: hosts started from the
   * same key files (a cloned disk or VM image, a shared state directory). Such hosts overwrite
   * each other's rows, the last to publish wins.
   */
  async sharedWith(keys: TokenKeys, serverId: number): Promise<Array<{ serverId: number; serverName: string }>> {
    const rows = (await this.db.query(
      `SELECT DISTINCT server_id, server_name FROM ${TABLE} WHERE kid IN (?, ?) AND server_id <> ?`,
      [keys.access.kid, keys.refresh.kid, serverId],
    )) as Array<{ server_id: number; server_name: string }>;
    return rows.map((r) => ({ serverId: Number(r.server_id), serverName: String(r.server_name) }));
  }

  /**
   * Publishes this host's two public keys and where it is reached: one row per key id (replacing
   * rows with the same ids) and, for a host with a server id, one row of its own under
   * `server:<id>`, which the forwarding reads the URL from (issue 36, item 8).
   */
  async publish(keys: TokenKeys, host: PublishedHost): Promise<void> {
    const row = (kid: string, kind: KeyKind, key: SigningKey) => [
      kid,
      kind,
      host.serverId,
      host.serverName,
      key.publicKey.export({ type: 'spki', format: 'pem' }) as string,
      host.apiUrl,
    ];
    const rows = [row(keys.access.kid, 'access', keys.access), row(keys.refresh.kid, 'refresh', keys.refresh)];
    if (host.serverId !== null) rows.push(row(serverRowKid(host.serverId), 'access', keys.access));
    await this.db.query(
      `INSERT INTO ${TABLE} (kid, kind, server_id, server_name, public_key, api_url, published_at)
       VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, NOW(3))').join(', ')}
       ON DUPLICATE KEY UPDATE server_id = VALUES(server_id), server_name = VALUES(server_name),
         public_key = VALUES(public_key), api_url = VALUES(api_url), published_at = VALUES(published_at)`,
      rows.flat(),
    );
  }
}
