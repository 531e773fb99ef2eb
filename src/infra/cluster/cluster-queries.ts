// The reads a multi-server host needs: the Servers rows, the URLs the other hosts published, and
// who owns a monitor, an event or a frame (docs/operations/multi-server.md).
import type { KeyQueryable } from '../../auth/peer-keys.js';

export interface ServerRow {
  Id: number;
  Name: string;
  Protocol: string | null;
  Hostname: string | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export class ClusterQueries {
  constructor(private readonly db: KeyQueryable) {}

  async servers(): Promise<ServerRow[]> {
    const rows = (await this.db.query('SELECT Id, Name, Protocol, Hostname FROM Servers')) as Array<
      Record<string, unknown>
    >;
    return rows.map((r) => ({
      Id: Number(r.Id),
      Name: String(r.Name ?? ''),
      Protocol: r.Protocol === null ? null : String(r.Protocol),
      Hostname: r.Hostname === null ? null : String(r.Hostname),
    }));
  }

  /**
   * The API URL each host published, by server id: from the host's own `server:<id>` row, else
   * (a host of an older zmgate) the newest of its key rows. Key rows can name the wrong server
   * when two hosts share key files; the server rows, read last, win over them.
   */
  async publishedUrls(): Promise<Map<number, string>> {
    const rows = (await this.db.query(
      `SELECT server_id, api_url FROM zmgate_cluster_keys
        WHERE server_id IS NOT NULL AND api_url <> ''
        ORDER BY kid = CONCAT('server:', server_id), published_at`,
    )) as Array<Record<string, unknown>>;
    const urls = new Map<number, string>();
    for (const r of rows) urls.set(Number(r.server_id), String(r.api_url));
    return urls;
  }

  /** Every monitor's ServerId. */
  async monitorServers(): Promise<Map<number, number | null>> {
    const rows = (await this.db.query('SELECT Id, ServerId FROM Monitors')) as Array<Record<string, unknown>>;
    return new Map(rows.map((r) => [Number(r.Id), num(r.ServerId)]));
  }

  /** Monitors.ServerId; undefined: no such monitor. */
  async monitorOwner(id: number): Promise<number | null | undefined> {
    const rows = (await this.db.query('SELECT ServerId FROM Monitors WHERE Id = ?', [id])) as Array<
      Record<string, unknown>
    >;
    return rows.length ? num(rows[0].ServerId) : undefined;
  }

  /**
   * The host holding an event's files, as ZoneMinder's web UI decides it: the server of the
   * event's Storage when it has one (the event may have been moved), else the monitor's server.
   */
  async eventOwner(id: number): Promise<number | null | undefined> {
    const rows = (await this.db.query(
      `SELECT S.ServerId AS StorageServer, M.ServerId AS MonitorServer
         FROM Events E LEFT JOIN Storage S ON S.Id = E.StorageId LEFT JOIN Monitors M ON M.Id = E.MonitorId
        WHERE E.Id = ?`,
      [id],
    )) as Array<Record<string, unknown>>;
    if (!rows.length) return undefined;
    return num(rows[0].StorageServer) || num(rows[0].MonitorServer);
  }

  async frameOwner(id: number): Promise<number | null | undefined> {
    const rows = (await this.db.query('SELECT EventId FROM Frames WHERE Id = ?', [id])) as Array<
      Record<string, unknown>
    >;
    return rows.length ? this.eventOwner(Number(rows[0].EventId)) : undefined;
  }
}
