// The migrations ledger (zmgate_migrations): which migrations a database has, and writing to it.
// Reading never creates the table, so `zmgate-db status` stays read-only.
import { createHash } from 'node:crypto';
import { quoteIdent } from '../converge/ddl.js';
import type { Queryable } from '../converge/introspect.js';
import { MIGRATIONS_TABLE } from '../schema/index.js';
import { SERVICE_VERSION } from '../../version.js';

export interface LedgerRow {
  id: string;
  name: string;
  checksum: string | null;
  appliedAt: string;
  executionMs: number;
  /** Recorded without running: the database already had what it does, or did not need it. */
  stamped: boolean;
  zmgateVersion: string;
}

export function checksumOf(definition: string): string {
  return createHash('sha256').update(definition).digest('hex');
}

/** The ledger's rows, or null when the table does not exist (nothing ever recorded). */
export async function readLedger(conn: Queryable): Promise<LedgerRow[] | null> {
  const [exists] = (await conn.query(
    'SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
    [MIGRATIONS_TABLE],
  )) as { n: number | bigint }[];
  if (!Number(exists.n)) return null;
  const rows = (await conn.query(
    `SELECT id, name, checksum, CAST(applied_at AS CHAR) AS appliedAt, execution_ms AS executionMs, stamped,
            zmgate_version AS zmgateVersion
       FROM ${quoteIdent(MIGRATIONS_TABLE)} ORDER BY id`,
  )) as (Omit<LedgerRow, 'stamped' | 'executionMs'> & { stamped: number; executionMs: number | bigint })[];
  return rows.map((row) => ({ ...row, executionMs: Number(row.executionMs), stamped: Number(row.stamped) === 1 }));
}

export interface LedgerEntry {
  id: string;
  name: string;
  checksum: string;
  executionMs?: number;
  stamped?: boolean;
}

/** Records a migration; a row already there is left as it is (the first record wins). */
export async function recordMigration(conn: Queryable, entry: LedgerEntry): Promise<void> {
  await conn.query(
    `INSERT INTO ${quoteIdent(MIGRATIONS_TABLE)} (id, name, checksum, execution_ms, stamped, zmgate_version)
     VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE id = id`,
    [
      entry.id,
      entry.name,
      entry.checksum,
      Math.max(0, Math.round(entry.executionMs ?? 0)),
      entry.stamped ? 1 : 0,
      SERVICE_VERSION,
    ],
  );
}
