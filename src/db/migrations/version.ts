// What a database holds: nothing, ZoneMinder (which version), or something else. Read-only.
//
// The version comes from Config.ZM_DYN_DB_VERSION (what zmupdate.pl last brought the schema to);
// the schema probes of docs/zoneminder/database.md are reported beside it, so a database whose recorded
// version and shape disagree is visible in `zmgate-db status`.
import type { Queryable } from '../converge/introspect.js';
import type { LiveSchema } from '../converge/index.js';

/** ZoneMinder version zmgate's schema target and seed rows are. */
export const TARGET_ZONEMINDER_VERSION = '1.39.22';
/** The oldest ZoneMinder schema the data migrations know how to bring forward. */
export const OLDEST_BRIDGEABLE_VERSION = '1.36.0';

export interface SchemaProbe {
  what: string;
  holds: boolean;
  /** What it says when it holds, e.g. '>= 1.37.12'. */
  meaning: string;
}

export interface DatabaseContents {
  kind: 'empty' | 'zoneminder' | 'other';
  /** Every table, view, routine and event in the schema (zmgate's own included). */
  objects: string[];
  /** Config.ZM_DYN_DB_VERSION, when readable. */
  dbVersion: string | null;
  /** Config.ZM_DYN_CURR_VERSION (the installed code's version), when readable. */
  codeVersion: string | null;
  probes: SchemaProbe[];
}

/** Numeric comparison of dotted versions ('1.36.33' < '1.37.0'); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}

export const isVersion = (value: string | null): value is string => !!value && /^\d+\.\d+(\.\d+)*$/.test(value.trim());

const hasTable = (live: LiveSchema, table: string) => live.tables.some((t) => t.name === table);
const hasColumn = (live: LiveSchema, table: string, column: string) =>
  live.tables.some((t) => t.name === table && t.columns.some((c) => c.name === column));

export { hasColumn, hasTable };

/** docs/zoneminder/database.md's probes against an introspected schema. */
export function schemaProbes(live: LiveSchema): SchemaProbe[] {
  return [
    { what: 'column Monitors.Capturing', holds: hasColumn(live, 'Monitors', 'Capturing'), meaning: '>= 1.37.12' },
    { what: 'table Snapshots_Events', holds: hasTable(live, 'Snapshots_Events'), meaning: '>= 1.37.28' },
    {
      what: 'column Users.MonitorIds',
      holds: hasColumn(live, 'Users', 'MonitorIds'),
      meaning: '< 1.37.76 (1.36 permission model)',
    },
    { what: 'table User_Roles', holds: hasTable(live, 'User_Roles'), meaning: '>= 1.37.78' },
    {
      what: 'column Monitors.ObjectDetection',
      holds: hasColumn(live, 'Monitors', 'ObjectDetection'),
      meaning: '>= 1.39.17',
    },
    { what: 'table Events_Lock', holds: hasTable(live, 'Events_Lock'), meaning: '>= 1.39.21' },
    {
      what: 'trigger event_insert_trigger',
      holds: live.triggers.some((t) => t.name === 'event_insert_trigger'),
      meaning: '< 1.37.77',
    },
  ];
}

/** Reads what `database` (already introspected as `live`) holds. Only SELECTs. */
export async function inspectContents(conn: Queryable, live: LiveSchema): Promise<DatabaseContents> {
  const others = (await conn.query(
    `SELECT CONCAT('routine ', ROUTINE_NAME) AS name FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?
     UNION ALL SELECT CONCAT('event ', EVENT_NAME) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ?`,
    [live.database, live.database],
  )) as { name: string }[];
  const objects = [
    ...live.tables.map((t) => `table ${t.name}`),
    ...live.views.map((v) => `view ${v}`),
    ...others.map((o) => o.name),
  ];
  const contents: DatabaseContents = {
    kind: 'empty',
    objects,
    dbVersion: null,
    codeVersion: null,
    probes: schemaProbes(live),
  };
  if (!objects.length) return contents;

  const zoneminder =
    hasColumn(live, 'Config', 'Name') && hasColumn(live, 'Config', 'Value') && hasTable(live, 'Monitors');
  contents.kind = zoneminder ? 'zoneminder' : 'other';
  if (zoneminder) {
    const rows = (await conn.query(
      "SELECT Name, Value FROM Config WHERE Name IN ('ZM_DYN_DB_VERSION', 'ZM_DYN_CURR_VERSION')",
    )) as { Name: string; Value: string | null }[];
    const value = (name: string) => rows.find((r) => r.Name === name)?.Value?.trim() ?? null;
    contents.dbVersion = value('ZM_DYN_DB_VERSION');
    contents.codeVersion = value('ZM_DYN_CURR_VERSION');
  }
  return contents;
}

/**
 * Why `bridge` must not touch this database, or null when it may. Only ZoneMinder from
 * OLDEST_BRIDGEABLE_VERSION up to the target is accepted: the data migrations know nothing older,
 * and converging a newer schema back to 1.39.22 could undo changes zmgate does not know about.
 */
export function bridgeRefusal(contents: DatabaseContents, database: string): string | null {
  if (contents.kind === 'empty')
    return `database ${database} is empty: nothing to bridge (use 'zmgate-db up' for a new install)`;
  if (contents.kind === 'other') {
    return `database ${database} does not hold ZoneMinder (no Config/Monitors tables); it has ${describeObjects(contents.objects)}; name ZoneMinder's database in the URL (ZM_DB_NAME in zm.conf)`;
  }
  const version = contents.dbVersion;
  if (!isVersion(version)) {
    return `database ${database} looks like ZoneMinder but Config.ZM_DYN_DB_VERSION is ${version === null ? 'missing' : `'${version}'`}: cannot tell which version it is; run ZoneMinder's zmupdate.pl to record its version`;
  }
  if (compareVersions(version, OLDEST_BRIDGEABLE_VERSION) < 0) {
    return `database ${database} holds ZoneMinder ${version}; zmgate bridges ${OLDEST_BRIDGEABLE_VERSION} or later (upgrade it with ZoneMinder's zmupdate.pl first)`;
  }
  if (compareVersions(version, TARGET_ZONEMINDER_VERSION) > 0) {
    return `database ${database} holds ZoneMinder ${version}, newer than the ${TARGET_ZONEMINDER_VERSION} schema this zmgate knows; upgrade zmgate instead`;
  }
  return null;
}

export function describeObjects(objects: string[], max = 5): string {
  const shown = objects.slice(0, max).join(', ');
  return `${objects.length} object(s): ${shown}${objects.length > max ? ', ...' : ''}`;
}
