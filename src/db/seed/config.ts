// The Config table against ZoneMinder 1.39.22's option list: what an existing database lacks,
// and how to complete it without touching anything an operator set.
//
// On a bridge every option the database lacks is inserted with its default. Options it has keep
// their Value (and their Prompt/Help, which the seed does not carry); their metadata (Id, Type,
// DefaultValue, Hint, Pattern, Format, Category, Readonly, Private, System, Requires) is brought
// to 1.39.22's, as `zmupdate.pl -f` would. Options 1.39.22 no longer defines (1.36's
// ZM_FILTER_EXECUTE_INTERVAL, the Cambozola ones, ...) are left in place: `zmupdate.pl -f` drops
// them, but nothing reads them and a dropped row cannot be brought back.
import type { Queryable } from '../converge/introspect.js';
import { ZONEMINDER_CONFIG } from './data/zoneminder-config.js';
import { insertSeedRows } from './insert.js';

/** Metadata columns refreshed on existing options. */
const METADATA = [
  'Id',
  'Type',
  'DefaultValue',
  'Hint',
  'Pattern',
  'Format',
  'Category',
  'Readonly',
  'Private',
  'System',
  'Requires',
];

export const CONFIG_OPTION_COUNT = ZONEMINDER_CONFIG.rows.length;

type Option = Record<string, string | null>;

function seedOptions(): Map<string, Option> {
  const { columns, rows } = ZONEMINDER_CONFIG;
  return new Map(
    rows.map((row) => [row[columns.indexOf('Name')]!, Object.fromEntries(columns.map((c, i) => [c, row[i]]))]),
  );
}

export interface ConfigState {
  /** 1.39.22 options the table lacks. */
  missing: string[];
  /** Options whose metadata differs from 1.39.22's. */
  stale: string[];
}

/** Read-only comparison of the live Config table with the 1.39.22 options. */
export async function readConfigState(conn: Queryable): Promise<ConfigState> {
  // Which metadata columns exist: a 1.36 table has them all, but be tolerant of older ones.
  const present = new Set(
    (
      (await conn.query(
        "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Config'",
      )) as { name: string }[]
    ).map((r) => r.name),
  );
  const compared = METADATA.filter((c) => present.has(c));
  const live = (await conn.query(
    `SELECT Name, ${compared.map((c) => `CAST(\`${c}\` AS CHAR) AS \`${c}\``).join(', ')} FROM Config`,
  )) as Option[];
  const byName = new Map(live.map((row) => [String(row.Name), row]));
  const state: ConfigState = { missing: [], stale: [] };
  for (const [name, option] of seedOptions()) {
    const have = byName.get(name);
    if (!have) state.missing.push(name);
    else if (METADATA.some((c) => !compared.includes(c) || (have[c] ?? null) !== (option[c] ?? null)))
      state.stale.push(name);
  }
  return state;
}

/** Inserts the missing options with their defaults and refreshes stale metadata. */
export async function completeConfig(
  conn: Queryable,
  state: ConfigState,
): Promise<{ inserted: number; refreshed: number }> {
  const options = seedOptions();
  const { columns } = ZONEMINDER_CONFIG;
  const missing = new Set(state.missing);
  // IGNORE: an option added by someone else since the state was read keeps its row.
  const inserted = await insertSeedRows(conn, ZONEMINDER_CONFIG, {
    ignore: true,
    rows: ZONEMINDER_CONFIG.rows.filter((row) => missing.has(row[columns.indexOf('Name')]!)),
  });
  let refreshed = 0;
  for (const name of state.stale) {
    const option = options.get(name)!;
    await conn.query(`UPDATE Config SET ${METADATA.map((c) => `\`${c}\` = ?`).join(', ')} WHERE Name = ?`, [
      ...METADATA.map((c) => option[c]),
      name,
    ]);
    refreshed++;
  }
  return { inserted, refreshed };
}

/** What completeConfig() will run, for dry runs (values elided; never executed). */
export function completeConfigSql(state: ConfigState): string[] {
  const out: string[] = [];
  if (state.missing.length)
    out.push(
      `INSERT IGNORE INTO Config (...) VALUES ... -- ${state.missing.length} option(s): ${state.missing.join(', ')}`,
    );
  if (state.stale.length)
    out.push(`UPDATE Config SET ${METADATA.join(', ')} = <1.39.22's> WHERE Name IN (${state.stale.length} option(s))`);
  return out;
}
