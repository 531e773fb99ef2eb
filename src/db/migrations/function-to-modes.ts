// 0002: Monitors.Function -> Capturing / Analysing / Recording (ZoneMinder 1.37.12).
//
// The mapping is docs/zoneminder/database.md's. Columns a Function does not name keep their value: the
// column defaults ('Always') the ALTER just gave them. Upstream's zm_update-1.37.12.sql differs
// in corners (it also sets Analysing='None' for Function None and leaves Monitor's Analysing at
// 'Always'); docs/zoneminder/database.md is the reference here. Function itself stays: 1.39 still has the column.
import type { DataMigration } from './types.js';
import { compareVersions, hasColumn } from './version.js';

const MAPPING: [fn: string, set: string][] = [
  ['None', "Capturing = 'None'"],
  ['Monitor', "Analysing = 'None', Recording = 'None'"],
  ['Modect', "Analysing = 'Always', Recording = 'OnMotion'"],
  ['Record', "Analysing = 'None', Recording = 'Always'"],
  ['Mocord', "Analysing = 'Always', Recording = 'Always'"],
  ['Nodect', "Analysing = 'None', Recording = 'OnMotion'"],
];

export const functionToModes: DataMigration = {
  id: '0002_function_to_modes',
  name: 'Monitors.Function -> Capturing/Analysing/Recording (ZoneMinder 1.37.12)',
  since: '1.37.12',
  destructive: false,
  // Right after Monitors gains the three columns, before anything else reads them.
  place: [{ after: 'alter-table:Monitors' }],
  // The columns are new on this run, or a previous run added them and stopped before this step
  // (ZM_DYN_DB_VERSION is still older than 1.37.12 then: it is set only when a bridge completes).
  needed: (ctx) =>
    !ctx.applied.has('0002_function_to_modes') &&
    (!hasColumn(ctx.live, 'Monitors', 'Capturing') ||
      (!!ctx.contents.dbVersion && compareVersions(ctx.contents.dbVersion, '1.37.12') < 0)),
  sql: () => MAPPING.map(([fn, set]) => `UPDATE \`Monitors\` SET ${set} WHERE \`Function\` = '${fn}'`),
  async run(conn, ctx) {
    const rows = (await conn.query(
      'SELECT `Function` AS fn, COUNT(*) AS n FROM `Monitors` GROUP BY `Function` ORDER BY `Function`',
    )) as {
      fn: string;
      n: number | bigint;
    }[];
    const summary = rows.map((r) => `${r.fn} ${Number(r.n)}`).join(', ');
    ctx.notes.push(
      `0002_function_to_modes: Capturing/Analysing/Recording set from Function (${summary || 'no monitors'})`,
    );
  },
};
