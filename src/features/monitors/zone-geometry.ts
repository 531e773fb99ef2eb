// Zone polygons: ZoneMinder stores `Coords` as "x,y x,y …" and derives nothing else from it, so
// the service computes NumCoords and Area (plain shoelace) on every write. Units follow
// Zones.Units: 'Percent' (the 1.39 default, coordinates 0–100, Area in percent², so a full frame
// is 10000) or 'Pixels' (integer coordinates, Area in pixels²).
import { InvalidInputError } from '../../errors.js';

export type ZoneUnits = 'Pixels' | 'Percent';
type Point = [number, number];

export interface Polygon {
  /** Normalised "x,y x,y …" (single spaces, a closing repeat of the first point dropped). */
  coords: string;
  numCoords: number;
  /** Rounded; at least 1 for any real polygon. */
  area: number;
}

export interface FrameSize {
  width: number;
  height: number;
}

/** Pixel coordinates cannot exceed the largest frame ZoneMinder stores (Width is a SMALLINT UNSIGNED). */
const MAX_PIXEL = 65535;
const TOKEN = /^(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)$/;

function reject(reason: string, field: string): never {
  throw new InvalidInputError('Zone coordinates do not form a polygon', [[field, reason]]);
}

/** Twice the signed area (shoelace). */
function doubleArea(points: Point[]): number {
  let sum = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i];
    const [x2, y2] = points[(i + 1) % points.length];
    sum += x1 * y2 - x2 * y1;
  }
  return sum;
}

const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
const within = (p: Point, a: Point, b: Point) =>
  Math.min(a[0], b[0]) <= p[0] &&
  p[0] <= Math.max(a[0], b[0]) &&
  Math.min(a[1], b[1]) <= p[1] &&
  p[1] <= Math.max(a[1], b[1]);

/** Whether segments ab and cd share any point (touching counts). */
function segmentsMeet(a: Point, b: Point, c: Point, d: Point): boolean {
  const d1 = cross(c, d, a);
  const d2 = cross(c, d, b);
  const d3 = cross(a, b, c);
  const d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (
    (d1 === 0 && within(a, c, d)) ||
    (d2 === 0 && within(b, c, d)) ||
    (d3 === 0 && within(c, a, b)) ||
    (d4 === 0 && within(d, a, b))
  );
}

/** True when two non-adjacent edges meet: a bow-tie's shoelace area is meaningless. */
function selfIntersects(points: Point[]): boolean {
  const n = points.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (j === i + 1 || (i === 0 && j === n - 1)) continue; // neighbours share a vertex
      if (segmentsMeet(points[i], points[(i + 1) % n], points[j], points[(j + 1) % n])) return true;
    }
  }
  return false;
}

/**
 * Parses and checks a polygon; throws a 400 naming `field` when the text is not a simple polygon
 * of at least three distinct points with a non-zero area inside the units' range.
 */
export function parsePolygon(text: string, units: ZoneUnits, field = 'coords', frame?: FrameSize): Polygon {
  const tokens = text.trim().split(/\s+/).filter(Boolean);
  if (tokens.length === 0) reject('no points', field);
  // Percent to two decimals, as ZoneMinder's own zone editor stores them.
  const exact = (v: number) => (units === 'Percent' ? Math.round(v * 100) / 100 : v);
  const points: Point[] = tokens.map((token) => {
    const m = TOKEN.exec(token);
    if (!m) reject(`"${token.slice(0, 20)}" is not an x,y pair of non-negative numbers`, field);
    return [exact(Number(m[1])), exact(Number(m[2]))];
  });
  const limitX = units === 'Percent' ? 100 : frame?.width ? frame.width : MAX_PIXEL;
  const limitY = units === 'Percent' ? 100 : frame?.height ? frame.height : MAX_PIXEL;
  for (const [x, y] of points) {
    if (units === 'Pixels' && (!Number.isInteger(x) || !Number.isInteger(y)))
      reject('pixel coordinates must be integers', field);
    if (x > limitX || y > limitY) reject(`point ${x},${y} lies outside 0..${limitX} x 0..${limitY} (${units})`, field);
  }
  const last = points[points.length - 1];
  if (points.length > 1 && last[0] === points[0][0] && last[1] === points[0][1]) points.pop(); // explicitly closed ring
  const distinct = new Set(points.map(([x, y]) => `${x},${y}`));
  if (distinct.size !== points.length) reject('a point is repeated', field);
  if (points.length < 3) reject('at least 3 distinct points are needed', field);
  if (points.length > 255) reject('at most 255 points', field);
  if (selfIntersects(points)) reject('edges cross each other', field);
  const area = Math.abs(doubleArea(points)) / 2;
  if (area === 0) reject('the points are collinear (zero area)', field);
  // Percent always with a decimal point: since 1.39.11 zma takes Coords without one for pixels,
  // whatever Units says (docs/zoneminder/coexistence.md, zone writes).
  const show = (v: number) => (units === 'Percent' ? v.toFixed(2) : String(v));
  return {
    coords: points.map(([x, y]) => `${show(x)},${show(y)}`).join(' '),
    numCoords: points.length,
    area: Math.max(1, Math.round(area)),
  };
}

/**
 * Percent coordinates ("x,y …", already checked by parsePolygon) as whole pixels of `frame`,
 * 0..width-1 and 0..height-1: what a ZoneMinder before 1.38.4 reads (docs/zoneminder/coexistence.md).
 */
export function percentToPixels(coords: string, frame: FrameSize): string {
  const at = (value: number, size: number) => Math.min(size - 1, Math.max(0, Math.round((value * size) / 100)));
  return coords
    .split(' ')
    .map((pair) => {
      const [x, y] = pair.split(',').map(Number);
      return `${at(x, frame.width)},${at(y, frame.height)}`;
    })
    .join(' ');
}
