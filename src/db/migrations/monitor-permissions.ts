// 0003: Users.MonitorIds -> Monitors_Permissions, then Users.MonitorIds is dropped
// (ZoneMinder 1.37.27 copied the lists, 1.37.76 dropped the column).
//
// In 1.36 a non-empty MonitorIds is the complete list of monitors a user may see; an empty one
// means all. 1.37.27 only copied the listed monitors as View/Edit rows, so with the 1.39 fallback
// (Users.Monitors != 'None' => visible) restricted users saw every monitor afterwards (docs/zoneminder/users.md
// §2.2). Here every existing monitor gets a row for such a user: Edit (Users.Monitors Edit/Create)
// or View for the listed ones, None for the others. Ids of monitors that no longer exist are
// dropped (the foreign key would refuse them). Rows already present are never overwritten.
//
// The column goes only after the rows are checked: one row per (restricted user, monitor).
import type { Queryable } from '../converge/introspect.js';
import type { DataMigration, MigrationContext } from './types.js';
import { hasColumn } from './version.js';

const ID = '0003_monitor_ids_to_permissions';

interface UserRow {
  Id: number;
  Username: string;
  Monitors: string;
  MonitorIds: string;
}

/** The ids in a 1.36 MonitorIds list ('1,3, 7'); anything that is not a positive integer is ignored. */
export function parseMonitorIds(list: string | null): number[] {
  return (list ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => /^\d+$/.test(part))
    .map(Number)
    .filter((id) => id > 0);
}

/**
 * Writes the Monitors_Permissions rows of every restricted user's MonitorIds (existing rows are
 * kept); returns the restricted users and the monitors, and warns of ids of monitors gone. Also
 * used for the side table kept beside a 1.36 database (src/db/side-tables.ts).
 */
export async function writeRowsFromMonitorIds(
  conn: Queryable,
  warnings: string[],
): Promise<{ users: UserRow[]; monitors: number[]; rows: Array<[number, number, string]> }> {
  const users = (
    (await conn.query(
      "SELECT Id, Username, Monitors, MonitorIds FROM Users WHERE MonitorIds IS NOT NULL AND TRIM(MonitorIds) <> '' ORDER BY Id",
    )) as UserRow[]
  ).map((u) => ({ ...u, Id: Number(u.Id) }));
  const monitors = ((await conn.query('SELECT Id FROM Monitors ORDER BY Id')) as { Id: number }[]).map((m) =>
    Number(m.Id),
  );
  const existing = new Set(monitors);

  const rows: [monitorId: number, userId: number, permission: string][] = [];
  for (const user of users) {
    const listed = new Set(parseMonitorIds(user.MonitorIds).filter((id) => existing.has(id)));
    const granted = user.Monitors === 'Edit' || user.Monitors === 'Create' ? 'Edit' : 'View';
    for (const monitorId of monitors) rows.push([monitorId, user.Id, listed.has(monitorId) ? granted : 'None']);
    const gone = parseMonitorIds(user.MonitorIds).filter((id) => !existing.has(id));
    if (gone.length)
      warnings.push(
        `${ID}: user ${user.Username}'s MonitorIds name monitors that no longer exist (${gone.join(', ')}); left out`,
      );
  }
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500);
    await conn.query(
      `INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES ${batch.map(() => '(?, ?, ?)').join(', ')}
       ON DUPLICATE KEY UPDATE Id = Id`,
      batch.flat(),
    );
  }
  return { users, monitors, rows };
}

async function migrate(conn: Queryable, ctx: MigrationContext): Promise<void> {
  const { users, monitors, rows } = await writeRowsFromMonitorIds(conn, ctx.warnings);

  // Check before dropping the only other copy of the lists: every (user, monitor) pair has a row.
  if (users.length && monitors.length) {
    const [check] = (await conn.query(
      `SELECT COUNT(*) AS n FROM Monitors_Permissions WHERE UserId IN (${users.map(() => '?').join(', ')})
         AND MonitorId IN (SELECT Id FROM Monitors)`,
      users.map((u) => u.Id),
    )) as { n: number | bigint }[];
    const expected = users.length * monitors.length;
    if (Number(check.n) !== expected) {
      throw new Error(
        `Monitors_Permissions holds ${Number(check.n)} rows for the ${users.length} restricted user(s), expected ${expected}; Users.MonitorIds kept`,
      );
    }
  }
  await conn.query('ALTER TABLE `Users` DROP COLUMN `MonitorIds`');

  const granted = rows.filter((r) => r[2] !== 'None').length;
  ctx.notes.push(
    `${ID}: ${users.length} restricted user(s) x ${monitors.length} monitor(s): ${granted} View/Edit and ${rows.length - granted} None row(s); Users.MonitorIds dropped`,
  );
  if (users.length) {
    ctx.warnings.push(
      `${ID}: monitors added from now on are visible to the ${users.length} formerly restricted user(s) (${users.map((u) => u.Username).join(', ')}) unless they get a None row in Monitors_Permissions (ZoneMinder 1.37+ has no "only these monitors" list)`,
    );
  }
}

export const monitorIdsToPermissions: DataMigration = {
  id: ID,
  name: 'Users.MonitorIds -> Monitors_Permissions (View/Edit for listed monitors, None for the others); drop Users.MonitorIds (ZoneMinder 1.37.27/1.37.76)',
  since: '1.37.27',
  destructive: true,
  risks: ['drops column Users.MonitorIds once its lists are in Monitors_Permissions (checked by row count first)'],
  removes: ['Users.MonitorIds'],
  // After Users reaches its 1.39 shape; Monitors_Permissions is created earlier in the plan.
  place: [{ after: 'alter-table:Users' }, { after: 'create-table:Monitors_Permissions' }],
  // The column is dropped last, so while it exists the lists have not been moved.
  needed: (ctx) => hasColumn(ctx.live, 'Users', 'MonitorIds'),
  run: migrate,
};
