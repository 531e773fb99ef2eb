// 0009: Users.Monitors 'Edit' -> 'Create' (ZoneMinder 1.37 added 'Create' to the enum).
//
// In 1.36 Edit on Monitors also allowed adding monitors; from 1.37 that takes Create, and
// upstream's update turns every Edit into Create. Here only users who could see every monitor
// get it: a 1.36 user restricted by MonitorIds stays at Edit (editing the monitors they are
// given), so the bridge never hands a restricted user a right over monitors they could not see.
// Runs before 0003 moves the MonitorIds lists away; on a resumed run where 0003 already ran, the
// restricted users are the ones with a None row in Monitors_Permissions.
import type { DataMigration, MigrationContext } from './types.js';
import { compareVersions, hasColumn } from './version.js';

const ID = '0009_users_monitors_create';

function enumHasCreate(ctx: MigrationContext): boolean {
  const column = ctx.live.tables.find((t) => t.name === 'Users')?.columns.find((c) => c.name === 'Monitors');
  return !!column && column.type.includes("'Create'");
}

export const usersMonitorsCreate: DataMigration = {
  id: ID,
  name: "Users.Monitors 'Edit' -> 'Create' for users not restricted to a list of monitors (ZoneMinder 1.37)",
  since: '1.37.0',
  destructive: false,
  risks: ['unrestricted users with Monitors=Edit may now also add monitors, as they could in 1.36'],
  place: [{ before: 'data-migration:0003_monitor_ids_to_permissions' }, { after: 'alter-table:Users' }],
  needed: (ctx) =>
    !ctx.applied.has(ID) &&
    (!enumHasCreate(ctx) || (!!ctx.contents.dbVersion && compareVersions(ctx.contents.dbVersion, '1.37.0') < 0)),
  sql: (ctx) => [
    hasColumn(ctx.live, 'Users', 'MonitorIds')
      ? "UPDATE `Users` SET `Monitors` = 'Create' WHERE `Monitors` = 'Edit' AND (`MonitorIds` IS NULL OR TRIM(`MonitorIds`) = '')"
      : "UPDATE `Users` SET `Monitors` = 'Create' WHERE `Monitors` = 'Edit' AND `Id` NOT IN (SELECT `UserId` FROM `Monitors_Permissions` WHERE `Permission` = 'None')",
  ],
  async run(conn, ctx) {
    const rows = (await conn.query("SELECT Username FROM Users WHERE Monitors = 'Create' ORDER BY Id")) as {
      Username: string;
    }[];
    ctx.notes.push(`${ID}: Monitors = Create for ${rows.map((r) => r.Username).join(', ') || 'nobody'}`);
  },
};
