// Service health and version: the two public routes every client calls first.
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import type { Services } from '../../registry.js';
import { ServiceUnavailableError } from '../../errors.js';
import { SERVICE_VERSION } from '../../version.js';
import { within } from '../../db/bounded.js';

export interface VersionInfo {
  version: string;
  api_version: string;
  db_version: string;
}

/** A health probe must answer quickly even when the database hangs. */
const PING_TIMEOUT_MS = 3000;

export class ServerService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): ServerService {
    return new ServerService(s.pool, s.log);
  }

  constructor(
    private readonly pool: DbPool,
    private readonly log: Logger,
  ) {}

  /** Throws ServiceUnavailableError when the database cannot be reached. */
  async checkHealth(): Promise<void> {
    try {
      // Its own bound, shorter than the one every query has (the pool's): a frozen server answers
      // neither the query nor a server-side max_statement_time.
      await within(this.pool.query('SELECT 1'), PING_TIMEOUT_MS);
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'health check: database unreachable');
      throw new ServiceUnavailableError('Database unreachable', [['database', 'unreachable']], 5);
    }
  }

  /**
   * `version` is ZoneMinder's installed version and `db_version` its schema version (both from
   * Config); `api_version` is this service's. Unknown values read "unknown", never an error.
   */
  async version(): Promise<VersionInfo> {
    const info: VersionInfo = { version: 'unknown', api_version: SERVICE_VERSION, db_version: 'unknown' };
    try {
      const rows: Array<{ Name: string; Value: string }> = await within(
        this.pool.query("SELECT Name, Value FROM Config WHERE Name IN ('ZM_DYN_CURR_VERSION', 'ZM_DYN_DB_VERSION')"),
        PING_TIMEOUT_MS,
      );
      for (const row of rows) {
        if (row.Name === 'ZM_DYN_CURR_VERSION' && row.Value) info.version = row.Value;
        if (row.Name === 'ZM_DYN_DB_VERSION' && row.Value) info.db_version = row.Value;
      }
    } catch (err) {
      this.log.debug({ err: { message: (err as Error).message } }, 'version: Config not readable');
    }
    return info;
  }
}
