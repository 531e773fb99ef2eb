// 0006: User_Preferences one row per (UserId, Name) (ZoneMinder 1.39.19), for 1.37/1.38 databases.
//
// 1.39.19 makes Name NOT NULL and adds UNIQUE (UserId, Name). The converger would turn NULL names
// into '' and then fail on the unique index wherever that made duplicates. As zm_update-1.39.19
// does: rows with a NULL Name are deleted (a preference is only ever looked up by name, so they
// are unreachable), and of duplicate (UserId, Name) rows only the newest (highest Id) is kept.
// A 1.36 database has no User_Preferences table: the bridge creates it empty.
import type { DataMigration } from './types.js';

const ID = '0006_user_preferences_names';

export const userPreferenceNames: DataMigration = {
  id: ID,
  name: 'User_Preferences: delete NULL-named rows and keep the newest of duplicate names (ZoneMinder 1.39.19)',
  since: '1.39.19',
  destructive: true,
  risks: ['deletes User_Preferences rows with a NULL Name and all but the newest row of a duplicated (UserId, Name)'],
  // Before the converger fills NULLs and adds the unique index.
  place: [{ before: 'fill-nulls:User_Preferences.Name' }, { before: 'alter-table:User_Preferences' }],
  // Decided by the table's shape: a table this bridge (or an interrupted earlier one) created
  // already has the NOT NULL name and the unique index, and needs nothing.
  needed: (ctx) => {
    const table = ctx.live.tables.find((t) => t.name === 'User_Preferences');
    if (!table || ctx.applied.has(ID)) return false;
    const nullable = table.columns.find((c) => c.name === 'Name')?.nullable ?? false;
    const unique = table.indexes.some((i) => i.unique && i.columns.join(',') === 'UserId,Name');
    return nullable || !unique;
  },
  sql: () => [
    'DELETE FROM `User_Preferences` WHERE `Name` IS NULL',
    `DELETE up FROM \`User_Preferences\` AS up
  JOIN (SELECT UserId, Name, MAX(Id) AS KeepId FROM \`User_Preferences\` GROUP BY UserId, Name) AS keep
    ON up.UserId = keep.UserId AND up.Name = keep.Name
 WHERE up.Id <> keep.KeepId`,
  ],
  async run(conn, ctx) {
    const [row] = (await conn.query('SELECT COUNT(*) AS n FROM `User_Preferences`')) as { n: number | bigint }[];
    ctx.notes.push(`${ID}: User_Preferences now holds ${Number(row.n)} row(s), one per (UserId, Name)`);
  },
};
