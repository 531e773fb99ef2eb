// 0005: Zones.Coords from pixels to percent of the monitor's Width/Height (ZoneMinder 1.39.2).
//
// Before 1.39.2 Coords are always pixels, whatever Zones.Units says (Units only chose how the UI
// showed the alarm-pixel limits). As zm_update-1.39.2.sql does: every zone whose Coords are
// still integers ('x,y x,y ...', no '.') is rewritten to percentages with 2 decimals, Area is
// rescaled by 10000/(W*H), and Units becomes 'Percent'. Unlike upstream, a zone that cannot be
// converted (its monitor has no size, or its Coords do not parse) keeps its Units, so readers
// that honour Units still read it right, and is reported. The Min/Max*Pixels limits are left as
// they are, as upstream leaves them.
import type { Queryable } from '../converge/introspect.js';
import type { DataMigration, MigrationContext } from './types.js';
import { compareVersions } from './version.js';

const ID = '0005_zones_pixels_to_percent';

/** round(numerator / denominator) for non-negative integers, halves away from zero (as MariaDB's ROUND). */
function roundDiv(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

/** `pixels` as a percentage of `size` with 2 decimals, e.g. (639, 640) -> '99.84'. */
export function percentOf(pixels: number, size: number): string {
  const hundredths = roundDiv(pixels * 10000, size);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}

/** '0,0 639,0 639,479' at 640x480 -> '0.00,0.00 99.84,0.00 99.84,99.79'; null if it does not parse. */
export function coordsToPercent(coords: string, width: number, height: number): string | null {
  const pairs = coords.trim().split(/\s+/).filter(Boolean);
  if (!pairs.length) return null;
  const out: string[] = [];
  for (const pair of pairs) {
    const match = /^(\d+),(\d+)$/.exec(pair);
    if (!match) return null;
    out.push(`${percentOf(Number(match[1]), width)},${percentOf(Number(match[2]), height)}`);
  }
  return out.join(' ');
}

/** Area in pixels -> in percent-units (a full frame is 100 x 100 = 10000). */
export function areaToPercent(area: number, width: number, height: number): number {
  return area > 0 ? roundDiv(area * 10000, width * height) : area;
}

interface ZoneRow {
  Id: number;
  Name: string;
  MonitorId: number;
  Coords: string;
  Area: number;
  Width: number | null;
  Height: number | null;
}

async function migrate(conn: Queryable, ctx: MigrationContext): Promise<void> {
  const zones = (await conn.query(
    `SELECT z.Id, z.Name, z.MonitorId, z.Coords, z.Area, m.Width, m.Height
       FROM Zones z LEFT JOIN Monitors m ON m.Id = z.MonitorId ORDER BY z.Id`,
  )) as ZoneRow[];
  let converted = 0;
  let already = 0;
  for (const zone of zones) {
    // Converted coordinates always carry decimals; integers only are pixels (upstream's test too).
    if (zone.Coords.includes('.')) {
      already++;
      continue;
    }
    const width = Number(zone.Width ?? 0);
    const height = Number(zone.Height ?? 0);
    const label = `zone ${zone.Id} '${zone.Name}' of monitor ${zone.MonitorId}`;
    if (!width || !height) {
      ctx.warnings.push(`${ID}: ${label} left in pixels: the monitor has no Width/Height (${width}x${height})`);
      continue;
    }
    const coords = coordsToPercent(zone.Coords, width, height);
    if (coords === null) {
      ctx.warnings.push(`${ID}: ${label} left in pixels: Coords '${zone.Coords}' do not parse as 'x,y x,y ...'`);
      continue;
    }
    await conn.query("UPDATE Zones SET Coords = ?, Area = ?, Units = 'Percent' WHERE Id = ?", [
      coords,
      areaToPercent(Number(zone.Area), width, height),
      zone.Id,
    ]);
    converted++;
  }
  ctx.notes.push(`${ID}: ${converted} zone(s) converted to percent${already ? `, ${already} already in percent` : ''}`);
}

export const zonesToPercent: DataMigration = {
  id: ID,
  name: 'Zones.Coords and Area from pixels to percent of the monitor size; Units = Percent (ZoneMinder 1.39.2)',
  since: '1.39.2',
  destructive: true,
  risks: ['rewrites Zones.Coords/Area/Units: ZoneMinder older than 1.39.2 would read the percentages as pixels'],
  place: [{ after: 'alter-table:Zones' }],
  // Decided by the recorded version (a run that stopped half-way has not raised it yet); each
  // zone is converted at most once anyway.
  needed: (ctx) =>
    !ctx.applied.has(ID) && !!ctx.contents.dbVersion && compareVersions(ctx.contents.dbVersion, '1.39.2') < 0,
  run: migrate,
};
