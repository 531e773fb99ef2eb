// The Users rows authentication needs, read with explicit SQL so that it works on every schema
// from ZoneMinder 1.36 (no roles) to 1.39 (User_Roles, RoleId).
import type { DbPool } from '../db/pool.js';
import { isCollationMismatch } from '../db/charset-errors.js';
import { FEATURE_COLUMNS, FEATURES, permissionsFromRow, withRole, type Permissions } from './permissions.js';

export interface UserRecord {
  id: number;
  username: string;
  password: string | null;
  enabled: boolean;
  apiEnabled: boolean;
  /** Unix seconds; tokens issued before it are revoked. */
  tokenMinExpiry: number;
  /** Effective permissions (the user's own, with the role filling in None areas). */
  perms: Permissions;
  roleId: number | null;
}

interface SchemaFeatures {
  roles: boolean;
}

const AREA_COLUMNS = FEATURES.map((f) => `u.\`${FEATURE_COLUMNS[f]}\``).join(', ');
const ROLE_COLUMNS = FEATURES.map((f) => `r.\`${FEATURE_COLUMNS[f]}\` AS \`role_${FEATURE_COLUMNS[f]}\``).join(', ');

export class UserDirectory {
  private schema?: Promise<SchemaFeatures>;

  constructor(private readonly pool: DbPool) {}

  private features(): Promise<SchemaFeatures> {
    this.schema ??= this.pool
      .query(
        `SELECT COUNT(*) AS n FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Users' AND COLUMN_NAME = 'RoleId'`,
      )
      .then((rows: Array<{ n: number | bigint }>) => ({ roles: Number(rows[0]?.n ?? 0) > 0 }))
      .catch((err) => {
        this.schema = undefined; // retry on the next call rather than remembering an outage
        throw err;
      });
    return this.schema;
  }

  private async select(where: string, params: unknown[]): Promise<UserRecord | null> {
    const { roles } = await this.features();
    const sql = roles
      ? `SELECT u.Id, u.Username, u.Password, u.Enabled, u.APIEnabled, u.TokenMinExpiry, u.RoleId, ${AREA_COLUMNS}, ${ROLE_COLUMNS}
           FROM Users u LEFT JOIN User_Roles r ON r.Id = u.RoleId WHERE ${where} LIMIT 2`
      : `SELECT u.Id, u.Username, u.Password, u.Enabled, u.APIEnabled, u.TokenMinExpiry, NULL AS RoleId, ${AREA_COLUMNS}
           FROM Users u WHERE ${where} LIMIT 2`;
    const rows: Array<Record<string, unknown>> = await this.pool.query(sql, params).catch((err: unknown) => {
      // A name the latin1 column cannot hold names no user (the caller equalises timing).
      if (isCollationMismatch(err)) return [];
      throw err;
    });
    // Two rows for one case-insensitive name is ambiguous: refuse rather than pick one.
    if (rows.length !== 1) return null;
    const row = rows[0];
    const role =
      row.RoleId != null
        ? permissionsFromRow(
            Object.fromEntries(FEATURES.map((f) => [FEATURE_COLUMNS[f], row[`role_${FEATURE_COLUMNS[f]}`]])),
          )
        : null;
    return {
      id: Number(row.Id),
      username: String(row.Username),
      password: row.Password == null ? null : String(row.Password),
      enabled: Number(row.Enabled) === 1,
      apiEnabled: row.APIEnabled == null ? true : Number(row.APIEnabled) === 1,
      tokenMinExpiry: Number(row.TokenMinExpiry ?? 0),
      perms: withRole(permissionsFromRow(row), role),
      roleId: row.RoleId == null ? null : Number(row.RoleId),
    };
  }

  async findByUsername(username: string): Promise<UserRecord | null> {
    const rows: Array<{ Value: string }> = await this.pool
      .query("SELECT Value FROM Config WHERE Name = 'ZM_CASE_INSENSITIVE_USERNAMES'")
      .catch(() => []);
    const insensitive = rows[0]?.Value === '1';
    // Username is latin1_bin in ZoneMinder, so '=' is exact; LOWER() on both sides folds case.
    return insensitive
      ? this.select('LOWER(CONVERT(u.Username USING utf8mb4)) = LOWER(?)', [username])
      : this.select('u.Username = ?', [username]);
  }

  findById(id: number): Promise<UserRecord | null> {
    return this.select('u.Id = ?', [id]);
  }

  /** Raises (never lowers) the revocation floor. */
  async raiseTokenFloor(id: number, floor: number): Promise<void> {
    await this.pool.query('UPDATE Users SET TokenMinExpiry = GREATEST(COALESCE(TokenMinExpiry, 0), ?) WHERE Id = ?', [
      floor,
      id,
    ]);
  }

  /** The whole Users row (any schema version), for UserResponse. */
  async row(id: number): Promise<Record<string, unknown> | null> {
    const rows: Array<Record<string, unknown>> = await this.pool.query('SELECT * FROM Users WHERE Id = ?', [id]);
    return rows[0] ?? null;
  }

  async setPassword(id: number, hash: string): Promise<void> {
    await this.pool.query('UPDATE Users SET Password = ? WHERE Id = ?', [hash, id]);
  }
}
