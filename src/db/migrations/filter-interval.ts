// 0004: Filters.ExecuteInterval from the old Config option ZM_FILTER_EXECUTE_INTERVAL.
//
// 1.37 replaced the one global "run saved filters every N seconds" option by a per-filter
// column. Upstream only adds the column with its default (60), silently resetting an operator's
// setting; here every filter starts with the value the old option had. The old Config row stays
// (see seed/config.ts: options 1.39 dropped are kept).
import type { DataMigration } from './types.js';
import { compareVersions, hasColumn } from './version.js';

const ID = '0004_filter_execute_interval';

export const filterExecuteInterval: DataMigration = {
  id: ID,
  name: 'Filters.ExecuteInterval from Config ZM_FILTER_EXECUTE_INTERVAL (ZoneMinder 1.37)',
  since: '1.37.0',
  destructive: false,
  place: [{ after: 'alter-table:Filters' }],
  needed: (ctx) =>
    !ctx.applied.has(ID) &&
    (!hasColumn(ctx.live, 'Filters', 'ExecuteInterval') ||
      (!!ctx.contents.dbVersion && compareVersions(ctx.contents.dbVersion, '1.37.0') < 0)),
  // Only a plain number is copied; anything else leaves the column's default.
  sql: () => [
    `UPDATE \`Filters\` SET \`ExecuteInterval\` = (SELECT CAST(\`Value\` AS UNSIGNED) FROM \`Config\` WHERE \`Name\` = 'ZM_FILTER_EXECUTE_INTERVAL')
 WHERE (SELECT \`Value\` FROM \`Config\` WHERE \`Name\` = 'ZM_FILTER_EXECUTE_INTERVAL') REGEXP '^[0-9]+$'`,
  ],
  async run(conn, ctx) {
    const [row] = (await conn.query("SELECT Value FROM Config WHERE Name = 'ZM_FILTER_EXECUTE_INTERVAL'")) as {
      Value: string;
    }[];
    ctx.notes.push(
      row && /^\d+$/.test(row.Value)
        ? `${ID}: every filter's ExecuteInterval set to ${row.Value} s (Config ZM_FILTER_EXECUTE_INTERVAL)`
        : `${ID}: no usable ZM_FILTER_EXECUTE_INTERVAL; filters keep ExecuteInterval 60`,
    );
  },
};
