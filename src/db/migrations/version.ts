// What a database holds: nothing, ZoneMinder (which version), or something else. Read-only.
//
// The version comes from Config.ZM_DYN_DB_VERSION (what zmupdate.pl last brought the schema to);
// the schema probes of docs/zoneminder/database.md are reported beside it, so a database whose recorded
// version and shape disagree is visible in `zmgate-db status`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../converge/introspect.js';
import type { LiveSchema } from '../converge/index.js';

/** ZoneMinder version zmgate's schema target and seed rows are. */
export const TARGET_ZONEMINDER_VERSION = '1.39.22';
/** The oldest ZoneMinder schema the data migrations know how to bring forward. */
export const OLDEST_BRIDGEABLE_VERSION = '1.36.0';
/**
 * The first ZoneMinder whose daemons and web UI read 1.39's model. Older ones read zones in
 * pixels (before 1.38.4), Users.MonitorIds (before 1.37.76) and Config by position, so a database
 * they use is left as theirs: docs/zoneminder/coexistence.md.
 */
export const FIRST_CONVERTIBLE_VERSION = '1.39.0';
/** The first ZoneMinder whose zma reads zones in percent when Zones.Units says so. */
const FIRST_PERCENT_ZONES_VERSION = '1.38.4';

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
export function bridgeRefusal(
  contents: DatabaseContents,
  database: string,
  options: { allowOlderZoneMinder?: boolean } = {},
): string | null {
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
  if (!options.allowOlderZoneMinder) return olderZoneMinderRefusal(contents, database);
  return null;
}

/**
 * The version of the ZoneMinder installed beside this database: ZM_DYN_CURR_VERSION, which
 * ZoneMinder's own zm_create.sql and zmupdate.pl set to the installed code's version (and which
 * `bridge` never changes); ZM_DYN_DB_VERSION when it is missing.
 */
export function installedZoneMinder(contents: DatabaseContents): string | null {
  if (isVersion(contents.codeVersion)) return contents.codeVersion.trim();
  return isVersion(contents.dbVersion) ? contents.dbVersion.trim() : null;
}

/** True when the installed ZoneMinder's daemons and UI predate 1.39's model. */
export function olderZoneMinderInstalled(contents: DatabaseContents): boolean {
  const installed = installedZoneMinder(contents);
  return (
    contents.kind === 'zoneminder' && installed !== null && compareVersions(installed, FIRST_CONVERTIBLE_VERSION) < 0
  );
}

/**
 * When `bridge` earlier converted a database that an older ZoneMinder still uses (its
 * ZM_DYN_DB_VERSION says 1.39 while the installed code is older): what that means, else null.
 */
export function convertedUnderOlderZoneMinder(contents: DatabaseContents): string | null {
  if (!olderZoneMinderInstalled(contents) || !isVersion(contents.dbVersion)) return null;
  if (compareVersions(contents.dbVersion, FIRST_CONVERTIBLE_VERSION) < 0) return null;
  const installed = installedZoneMinder(contents)!;
  return (
    `the database was converted to ZoneMinder ${contents.dbVersion} (Config.ZM_DYN_DB_VERSION) while ZoneMinder ${installed} ` +
    `(ZM_DYN_CURR_VERSION) is installed: ${installed}'s daemons and web UI do not read that model ` +
    `(${harmsFor(installed, contents).join('; ')}). Restore the backup taken before 'zmgate-db bridge', ` +
    `or upgrade ZoneMinder itself to 1.39 (docs/zoneminder/coexistence.md)`
  );
}

/** What converting would do to a database the installed, older ZoneMinder reads. */
function harmsFor(installed: string, contents: DatabaseContents): string[] {
  const harms: string[] = [];
  if (compareVersions(installed, FIRST_PERCENT_ZONES_VERSION) < 0) {
    harms.push(
      `zones in percent, which ZoneMinder ${installed}'s zma reads as pixels, so motion outside one corner records nothing`,
    );
  }
  if (contents.probes.some((p) => p.what === 'column Users.MonitorIds' && p.holds)) {
    harms.push(`no Users.MonitorIds, which ZoneMinder ${installed}'s console and API use to limit a user's monitors`);
  }
  harms.push(`Config options it does not know (it reads Config by position)`);
  harms.push(`ZM_DYN_DB_VERSION raised, so ZoneMinder's own zmupdate.pl would skip its update scripts`);
  return harms;
}

/**
 * Refuses to convert a database an older ZoneMinder reads. One converted earlier is not refused:
 * what is left to do there only adds (and start-up and `status` warn about the conversion).
 */
function olderZoneMinderRefusal(contents: DatabaseContents, database: string): string | null {
  if (!olderZoneMinderInstalled(contents) || convertedUnderOlderZoneMinder(contents)) return null;
  const installed = installedZoneMinder(contents)!;
  return (
    `database ${database} belongs to ZoneMinder ${installed} (Config.ZM_DYN_CURR_VERSION), whose daemons and web UI read it; ` +
    `converting it to ${TARGET_ZONEMINDER_VERSION} would give them ${harmsFor(installed, contents).join('; ')}. ` +
    `Nothing was changed. zmgate runs beside ZoneMinder ${installed} without this step (README, "Beside ZoneMinder 1.36 and 1.38"); ` +
    `bridge after ZoneMinder itself is upgraded to 1.39 (its zmupdate.pl converts the database). ` +
    `--allow-older-zoneminder converts anyway: only for a copy of the database that no ZoneMinder ${installed} uses`
  );
}

export function describeObjects(objects: string[], max = 5): string {
  const shown = objects.slice(0, max).join(', ');
  return `${objects.length} object(s): ${shown}${objects.length > max ? ', ...' : ''}`;
}

/**
 * The version the capture daemon on this host prints (`zmc --version`), looked for in `binDirs`
 * (ZM_PATH_BIN; Debian's /usr/bin), or null when there is none or it says nothing usable.
 */
export function localZmcVersion(binDirs: readonly string[] = ['/usr/bin', '/usr/local/bin']): {
  path: string;
  version: string;
} | null {
  for (const dir of binDirs) {
    const zmc = path.join(dir, 'zmc');
    if (!existsSync(zmc)) continue;
    const r = spawnSync(zmc, ['--version'], { encoding: 'utf8', timeout: 3000 });
    const version = /\d+\.\d+\.\d+/.exec(r.stdout ?? '')?.[0];
    if (version) return { path: zmc, version };
  }
  return null;
}

/** zmgate's tables in a few words: the side tables counted, the others named. */
function describeOwn(own: string[]): string {
  const side = own.filter((name) => name.startsWith('zmgate_side_'));
  const rest = own.filter((name) => !name.startsWith('zmgate_side_'));
  return [...(side.length ? [`${side.length} zmgate_side_* for 1.39 data`] : []), ...rest].join(', ');
}

/** Whether ZoneMinder's own upgrade (zmupdate.pl) can run over this database as it expects. */
export function upgradePath(contents: DatabaseContents, objects: readonly string[] = contents.objects): string {
  const converted = convertedUnderOlderZoneMinder(contents);
  if (converted) return `not clear: ${converted}`;
  const own = objects.filter((o) => /^table zmgate_/.test(o)).map((o) => o.slice('table '.length));
  if (olderZoneMinderInstalled(contents)) {
    return (
      `clear: ZM_DYN_DB_VERSION is ZoneMinder's own (${contents.dbVersion}); zmgate added ` +
      (own.length ? `only its own tables (${describeOwn(own)}), which ZoneMinder ignores` : 'nothing') +
      `; ZoneMinder's zmupdate.pl upgrades this database as usual`
    );
  }
  return `clear: ZoneMinder ${installedZoneMinder(contents) ?? 'unknown'} reads this database's model`;
}
