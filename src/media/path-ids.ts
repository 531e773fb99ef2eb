// The ids in media paths, read alike by every media entry and the WebRTC upgrade: decimal digits
// only, within the column's range (Monitors.Id int, Events.Id bigint); anything else is a 400
// naming the parameter, as tsoa's validation answers on the JSON routes.
import { InvalidInputError } from '../errors.js';

const MAX_MONITOR_ID = 2_147_483_647;
const MAX_EVENT_ID = 9_223_372_036_854_775_807n;

/** A monitor id path segment, or null for anything else. */
export function parseMonitorId(text: string): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const id = Number(text);
  return id <= MAX_MONITOR_ID ? id : null;
}

/** An event id path segment (int64 >= 0), or null for anything else. */
export function parseEventId(text: string): bigint | null {
  if (!/^\d{1,19}$/.test(text)) return null;
  const id = BigInt(text);
  return id <= MAX_EVENT_ID ? id : null;
}

const invalid = (name: string) => new InvalidInputError('Invalid input', [[name, 'must be an integer >= 0']]);

/** The monitor id of path parameter `name` (as express or the URL gives it); a 400 when it is not one. */
export function monitorIdParam(value: unknown, name = 'monitor_id'): number {
  const id = parseMonitorId(typeof value === 'string' ? value : '');
  if (id === null) throw invalid(name);
  return id;
}

/** The event id of path parameter `name` (as express gives it); a 400 when it is not one. */
export function eventIdParam(value: unknown, name = 'id'): bigint {
  const id = parseEventId(typeof value === 'string' ? value : '');
  if (id === null) throw invalid(name);
  return id;
}

/** A single-valued query parameter of a media route (a repeated one is refused, not guessed at). */
export function singleQuery(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || typeof v === 'string') return v;
  throw new InvalidInputError('Invalid input', [[name, 'must be given once']]);
}
