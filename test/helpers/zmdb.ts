// A fresh database with the full ZoneMinder 1.39.22 schema (converged, no seed rows), plus
// small helpers to add users and monitors for tests.
import { createConnection } from 'mariadb';
import { convergeSchema } from '../../src/db/converge/index.js';
import type { ThrowawayMariaDb } from '../../src/devdb/throwaway-mariadb.js';
import { freshDatabase, type FreshDatabase } from './mariadb.js';

/**
 * `charset: 'latin1'` makes the database's default character set latin1 before the schema is
 * created, as on many real installs: every ZoneMinder text column is then latin1.
 */
export async function zmDatabase(
  prefix: string,
  options: { charset?: 'latin1' | 'utf8mb4'; server?: ThrowawayMariaDb } = {},
): Promise<FreshDatabase> {
  const db = await freshDatabase(prefix, options.server);
  if (options.charset === 'latin1')
    await db.db.exec(`ALTER DATABASE \`${db.name}\` CHARACTER SET latin1 COLLATE latin1_swedish_ci`);
  const conn = await createConnection(db.db.connectionConfig(db.name));
  try {
    await convergeSchema(conn, { database: db.name });
  } finally {
    await conn.end();
  }
  return db;
}

export interface TestUser {
  username: string;
  password: string;
  /** Stored form; defaults to a bcrypt hash computed by the caller. */
  stored: string;
  perms?: Partial<
    Record<'Stream' | 'Events' | 'Control' | 'Monitors' | 'Groups' | 'Devices' | 'Snapshots' | 'System', string>
  >;
  enabled?: number;
  apiEnabled?: number;
  roleId?: number | null;
}

export async function insertUser(db: FreshDatabase, user: TestUser): Promise<number> {
  const perms = user.perms ?? {};
  const cols = ['Username', 'Password', 'Enabled', 'APIEnabled', 'RoleId', ...Object.keys(perms)];
  const values = [
    user.username,
    user.stored,
    user.enabled ?? 1,
    user.apiEnabled ?? 1,
    user.roleId ?? null,
    ...Object.values(perms),
  ];
  await db.db.query(
    `INSERT INTO Users (${cols.map((c) => `\`${c}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    values,
    db.name,
  );
  const [row] = await db.db.query<{ Id: number }>('SELECT Id FROM Users WHERE Username = ?', [user.username], db.name);
  return Number(row.Id);
}
