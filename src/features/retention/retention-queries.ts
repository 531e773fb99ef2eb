// The SQL retention reads with. Deletions never happen here: they go through the one event
// deletion path (src/zm/event-deletion.ts).
import { toLocalDateTimeString } from '../../db/datetime.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { EventScheme } from '../../zm/event-paths.js';

export interface StorageRow {
  Id: number;
  Name: string;
  Path: string;
  Type: string;
  DoDelete: boolean;
}

export interface CandidateRow {
  Id: bigint;
  MonitorId: number;
  /** ZoneMinder wall-clock time (local digits in the UTC fields). */
  StartDateTime: Date;
  DiskSpace: bigint | null;
  Scheme: EventScheme;
}

/** Storage 0 stands for events with StorageId 0/NULL or a missing row: they live in ZM_DIR_EVENTS. */
export const DEFAULT_STORAGE_ID = 0;

export async function storageRows(prisma: PrismaClient): Promise<StorageRow[]> {
  const rows = await prisma.$queryRawUnsafe<Array<Omit<StorageRow, 'DoDelete'> & { DoDelete: number | boolean }>>(
    'SELECT Id, Name, Path, Type, DoDelete FROM Storage ORDER BY Id',
  );
  return rows.map((r) => ({ ...r, Id: Number(r.Id), DoDelete: Boolean(Number(r.DoDelete)) }));
}

/** Distinct StorageId values of Events (an index-only scan); NULL reads as 0. */
export async function eventStorageIds(prisma: PrismaClient): Promise<number[]> {
  const rows = await prisma.$queryRawUnsafe<Array<{ StorageId: number | null }>>(
    'SELECT DISTINCT StorageId FROM Events',
  );
  return rows.map((r) => Number(r.StorageId ?? 0));
}

/** The WHERE condition selecting one storage's events; `known` are the Storage row Ids. */
export function storageCondition(storageId: number, known: number[]): { sql: string; params: unknown[] } {
  if (storageId !== DEFAULT_STORAGE_ID) return { sql: 'StorageId = ?', params: [storageId] };
  const missing = known.length ? ` OR StorageId NOT IN (${known.map(() => '?').join(', ')})` : '';
  return { sql: `(StorageId IS NULL OR StorageId = 0${missing})`, params: known };
}

/** Summed DiskSpace of a storage's events, and how many have none recorded (1.36 leaves it NULL). */
export async function storageUsage(
  prisma: PrismaClient,
  cond: { sql: string; params: unknown[] },
): Promise<{ bytes: number; events: number; unknown: number }> {
  const [row] = await prisma.$queryRawUnsafe<Array<{ bytes: unknown; events: unknown; unknown: unknown }>>(
    `SELECT COALESCE(SUM(DiskSpace), 0) AS bytes, COUNT(*) AS events, COALESCE(SUM(DiskSpace IS NULL), 0) AS \`unknown\` FROM Events WHERE ${cond.sql}`,
    ...cond.params,
  );
  return { bytes: Number(row.bytes), events: Number(row.events), unknown: Number(row.unknown) };
}

/**
 * The next page of deletable-looking events of a storage, oldest first (StartDateTime, then Id),
 * after `after`. Archived, locked, unfinished events and events without a start time are never
 * listed; the pass checks the rest (newest of its monitor, open files) one by one.
 */
export async function candidatePage(
  prisma: PrismaClient,
  cond: { sql: string; params: unknown[] },
  after: { start: Date; id: bigint } | null,
  limit: number,
): Promise<CandidateRow[]> {
  const keyset = after ? ' AND (StartDateTime > ? OR (StartDateTime = ? AND Id > ?))' : '';
  // Wall-clock digits as stored, never an instant.
  const start = after ? toLocalDateTimeString(after.start) : null;
  const params = after ? [...cond.params, start, start, after.id.toString()] : cond.params;
  const rows = await prisma.$queryRawUnsafe<CandidateRow[]>(
    `SELECT Id, MonitorId, StartDateTime, DiskSpace, Scheme FROM Events
      WHERE ${cond.sql} AND Archived = 0 AND Locked = 0 AND EndDateTime IS NOT NULL AND StartDateTime IS NOT NULL${keyset}
      ORDER BY StartDateTime, Id LIMIT ${Math.trunc(limit)}`,
    ...params,
  );
  // Unsigned INT columns come back as bigint from raw queries.
  return rows.map((r) => ({ ...r, Id: BigInt(r.Id), MonitorId: Number(r.MonitorId) }));
}

/** The newest event of a monitor (by StartDateTime, then Id), over every storage. */
export async function newestEventOf(prisma: PrismaClient, monitorId: number): Promise<bigint | null> {
  const rows = await prisma.$queryRawUnsafe<Array<{ Id: bigint }>>(
    'SELECT Id FROM Events WHERE MonitorId = ? ORDER BY StartDateTime DESC, Id DESC LIMIT 1',
    monitorId,
  );
  return rows[0] ? BigInt(rows[0].Id) : null;
}
