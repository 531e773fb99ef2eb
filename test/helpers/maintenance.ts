// Helpers for the maintenance job tests (test/maintenance/).
import { Writable } from 'node:stream';
import { createPool, type DbPool } from '../../src/db/pool.js';
import { createLogger, type Logger } from '../../src/log.js';
import { sql } from './events.js';
import { dbConfigFor, type FreshDatabase } from './mariadb.js';

/** A logger whose records are kept for assertions. */
export function capturedLogger(): { log: Logger; records: Array<Record<string, any>> } {
  const records: Array<Record<string, any>> = [];
  const log = createLogger({
    level: 'debug',
    stream: new Writable({
      write(chunk, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) records.push(JSON.parse(line));
        done();
      },
    }),
  });
  return { log, records };
}

/** The service's driver pool on a test database (as the service creates it). */
export function poolFor(db: FreshDatabase): DbPool {
  return createPool(dbConfigFor(db, { idle_timeout_secs: 5 }));
}

/** Sets a ZoneMinder Config row (created when missing). */
export async function setZmConfig(db: FreshDatabase, name: string, value: string): Promise<void> {
  await sql(
    db,
    "INSERT INTO Config (Name, Value, Type, Category) VALUES (?, ?, 'string', 'system') ON DUPLICATE KEY UPDATE Value = VALUES(Value)",
    [name, value],
  );
}

/** A checksum of every row of every table (and the row counts), to prove a dry run wrote nothing. */
export async function databaseChecksum(db: FreshDatabase): Promise<Record<string, string>> {
  const tables = await sql(
    db,
    "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
    [db.name],
  );
  const out: Record<string, string> = {};
  for (const { t } of tables) {
    const [row] = await sql(db, `CHECKSUM TABLE \`${t}\` EXTENDED`);
    const [{ n }] = await sql(db, `SELECT COUNT(*) AS n FROM \`${t}\``);
    out[t] = `${String(row.Checksum)}/${String(n)}`;
  }
  return out;
}
