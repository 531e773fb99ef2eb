// The two read paths a UI polls (the monitor list and one monitor), straight through the driver.
// The list reads every row into a short-lived cache (monitors-service.ts, read-caches.ts).
//
// Why not Prisma here: a Monitors row has ~150 columns, and Prisma's per-value result mapping
// cost ~1.5 ms of CPU for a page of 20 monitors, about four times the driver's own decoding
// (bench/monitors-api.ts). The SQL is one explicit SELECT of the response columns, run with
// execute(): the binary protocol, so every value is decoded exactly as the Prisma adapter
// receives it (FLOAT as the double of the stored single, DECIMAL as text, BOOLEAN as 0/1),
// and toResponse() turns either into the same JSON. test/monitors/read-path.test.ts checks
// the two paths give identical responses. Writes stay on Prisma.
import type { Pool } from 'mariadb';
import type { Monitors } from '../../generated/prisma/client.js';
import type { LiveColumns } from '../../db/live-columns.js';
import { joinSetColumns } from '../../db/prisma-zero-dates.js';
import { MONITOR_FIELDS } from './monitor-fields.js';

/** The part of the driver pool used here. */
export type MonitorRowsDb = Pick<Pool, 'execute'>;

const COLUMNS = MONITOR_FIELDS.filter((f) => !f.writeOnly).map((f) => String(f.column));

export class MonitorRows {
  /**
   * `columns`: on a database of an older ZoneMinder (1.36, 1.38), the columns it lacks are read as
   * stand-ins (the modes derived from Function); without it every column is read as it is.
   */
  constructor(
    private readonly db: MonitorRowsDb,
    private readonly columns?: LiveColumns,
  ) {}

  private async select(): Promise<string> {
    return this.columns ? this.columns.selectList('Monitors', COLUMNS) : COLUMNS.map((c) => `\`${c}\``).join(', ');
  }

  /** Every monitor, ordered by Id (the monitor list's cache is filled from this; read-caches.ts). */
  async all(): Promise<Monitors[]> {
    return joinSetColumns(
      await this.db.execute({ sql: `SELECT ${await this.select()} FROM Monitors ORDER BY Id`, dateStrings: true }),
    );
  }

  async byId(id: number): Promise<Monitors | null> {
    const rows: Monitors[] = joinSetColumns(
      await this.db.execute({ sql: `SELECT ${await this.select()} FROM Monitors WHERE Id = ?`, dateStrings: true }, [
        id,
      ]),
    );
    return rows[0] ?? null;
  }
}
