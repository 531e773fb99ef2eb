// The two read paths a UI polls (the monitor list and one monitor), straight through the driver.
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
import { joinSetColumns } from '../../db/prisma-zero-dates.js';
import { MONITOR_FIELDS } from './monitor-fields.js';

/** The part of the driver pool used here. */
export type MonitorRowsDb = Pick<Pool, 'execute'>;

const COLUMNS = MONITOR_FIELDS.filter((f) => !f.writeOnly)
  .map((f) => `\`${String(f.column)}\``)
  .join(', ');

export class MonitorRows {
  constructor(private readonly db: MonitorRowsDb) {}

  /**
   * One page ordered by Id, and the total. `visible` null = every monitor. The total is derived
   * from the page when the page is not full (the common case: a handful of monitors), so only a
   * full page costs a COUNT.
   */
  async page(visible: ReadonlySet<number> | null, skip: number, take: number): Promise<{ rows: Monitors[]; total: number }> {
    if (visible !== null && visible.size === 0) return { rows: [], total: 0 };
    const ids = visible === null ? [] : [...visible];
    const where = visible === null ? '' : `WHERE Id IN (${ids.map(() => '?').join(',')})`;
    // SET columns (Triggers) come back split into arrays: joined into the stored text, as Prisma reads them.
    const rows: Monitors[] = joinSetColumns(
      await this.db.execute({ sql: `SELECT ${COLUMNS} FROM Monitors ${where} ORDER BY Id LIMIT ? OFFSET ?`, dateStrings: true }, [...ids, take, skip]),
    );
    let total = skip + rows.length;
    // An empty page past the end says nothing about how many rows come before it.
    if (rows.length >= take || (rows.length === 0 && skip > 0)) {
      const [count] = await this.db.execute(`SELECT COUNT(*) AS n FROM Monitors ${where}`, ids);
      total = Number(count.n);
    }
    return { rows, total };
  }

  async byId(id: number): Promise<Monitors | null> {
    const rows: Monitors[] = joinSetColumns(await this.db.execute({ sql: `SELECT ${COLUMNS} FROM Monitors WHERE Id = ?`, dateStrings: true }, [id]));
    return rows[0] ?? null;
  }
}
