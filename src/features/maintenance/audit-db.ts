// The database half of the audit (replaces zmaudit.pl's database checks; see
// docs/operations/maintenance.md and docs/zoneminder/derived-tables.md). One pass:
//   1. Frames and Stats rows whose event is gone are removed (and zmgate's side rows of tags, event
//      data and detections beside an older ZoneMinder).
//   2. Unclosed events whose capture daemon is no longer writing are closed (audit-recover.ts):
//      end time, length, frame count and scores recomputed from the frames that exist, name
//      tagged "(r)" and notes "Recovered." as ZoneMinder does. Never deleted.
//   3. Empty events (closed, no frame) older than min_age_seconds are deleted through the one
//      event deletion path (rows and directory), unless their directory holds a recording.
//   4. Events.DiskSpace is filled from the files where it is NULL.
//   5. Event_Summaries and Storage.DiskSpace are recomputed.
// Archived events are never touched. With dryRun nothing is written: each step counts (and
// logs) what it would do.
import { toApiError } from '../../db/to-api-error.js';
import type { DbPool } from '../../db/pool.js';
import type { PrismaClient } from '../../db/prisma.js';
import { ApiError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { EventDeletion } from '../../zm/event-deletion.js';
import { eventPaths, isSafeRoot, type EventScheme } from '../../zm/event-paths.js';
import { fromLocalDateTimeString } from '../../db/datetime.js';
import { recoverUnclosed } from './audit-recover.js';
import { deleteInBatches } from './batched.js';
import { dirFacts } from './event-files.js';
import type { JobCounts } from './scheduler.js';
import { resyncWindowCounters } from './stats-job.js';

export interface AuditDbOptions {
  pool: DbPool;
  prisma: PrismaClient;
  log: Logger;
  /** ZM_DIR_EVENTS: the root of events whose StorageId is 0 or has no row. */
  dirEvents: string;
  dryRun: boolean;
  minAgeSeconds: number;
  deletion?: EventDeletion;
}

export interface StorageRow {
  Id: number;
  Path: string;
  Type: string;
  DoDelete: number;
  Enabled: number;
}

export interface EventLocation {
  Id: number;
  MonitorId: number;
  StorageId: number | null;
  StartDateTime: string | null;
  Scheme: EventScheme;
}

/** Where an event's directory is, or null when its storage root is unusable. */
export function eventDirOf(e: EventLocation, storages: Map<number, StorageRow>, dirEvents: string): string | null {
  const root = (e.StorageId ? storages.get(e.StorageId)?.Path : undefined) || dirEvents;
  if (!isSafeRoot(root)) return null;
  let start: Date | null = null;
  try {
    start = e.StartDateTime ? fromLocalDateTimeString(e.StartDateTime) : null;
  } catch {
    // a zero or malformed date: the Shallow fallback, as for a missing start
  }
  return eventPaths({ id: e.Id, monitorId: e.MonitorId, startDateTime: start, scheme: e.Scheme }, root).eventDir;
}

export async function loadStorages(pool: DbPool): Promise<Map<number, StorageRow>> {
  const rows = await pool.query<StorageRow[]>('SELECT Id, Path, Type, DoDelete, Enabled FROM Storage');
  return new Map(rows.map((r) => [Number(r.Id), r]));
}

const ID_CHUNK = 500;

export class AuditDb {
  private readonly deletion: EventDeletion;

  constructor(private readonly o: AuditDbOptions) {
    this.deletion = o.deletion ?? new EventDeletion(o.prisma, o.dirEvents, o.log);
  }

  private would(counts: JobCounts, key: string, n = 1): void {
    counts[key] = (counts[key] ?? 0) + n;
  }

  async run(): Promise<JobCounts> {
    const counts: JobCounts = { dry_run: this.o.dryRun ? 1 : 0 };
    try {
      const storages = await loadStorages(this.o.pool);
      await this.orphanRows(counts);
      // A recovered event is never deleted as empty in the same pass (it may have no frame).
      const recovered = await recoverUnclosed(this.o, counts);
      await this.deleteEmpty(counts, storages, recovered);
      await this.fillDiskSpace(counts, storages);
      counts.summaries_updated = await this.recomputeSummaries();
      counts.storage_updated = await this.recomputeStorage();
    } catch (err) {
      // The scheduler records what the pass did before it stopped (its status shows the counts).
      throw Object.assign(err as Error, { counts: { ...counts } });
    }
    if (this.o.dryRun)
      this.o.log.info(
        { job: 'audit', counts },
        'audit dry run: nothing was written; the counts say what would have been done',
      );
    return counts;
  }

  /**
   * 1. Frames and Stats rows of events that no longer exist; and the rows zmgate keeps beside an
   * older ZoneMinder (tags, event data, detections: side tables without the foreign keys that
   * remove them with their event on 1.39) of events ZoneMinder itself deleted.
   */
  private async orphanRows(counts: JobCounts): Promise<void> {
    for (const table of ['Frames', 'Stats', 'Events_Tags', 'Event_Data', 'AI_Detections'] as const) {
      const rows = await this.o.pool
        .query<Array<{ EventId: number }>>(
          `SELECT DISTINCT t.EventId FROM ${table} t LEFT JOIN Events e ON e.Id = t.EventId WHERE e.Id IS NULL`,
        )
        .catch((err: { errno?: number }) => {
          // A table neither this ZoneMinder nor zmgate has (1.39's, on a database whose side tables were not made).
          if (err.errno === 1146 && !['Frames', 'Stats'].includes(table)) return null;
          throw err;
        });
      if (rows === null) continue;
      const ids = rows.map((r) => Number(r.EventId));
      counts[`${table.toLowerCase()}_orphan_events`] = ids.length;
      let removed = 0;
      if (ids.length && this.o.dryRun) {
        const [{ n }] = await this.o.pool.query<Array<{ n: number }>>(
          `SELECT COUNT(*) AS n FROM ${table} t LEFT JOIN Events e ON e.Id = t.EventId WHERE e.Id IS NULL`,
        );
        removed = Number(n);
      } else {
        for (let i = 0; i < ids.length; i += ID_CHUNK) {
          const chunk = ids.slice(i, i + ID_CHUNK);
          // The NOT EXISTS re-check: an id reused by an event inserted meanwhile is left alone.
          removed += await deleteInBatches(
            this.o.pool,
            `DELETE FROM ${table} WHERE EventId IN (${chunk.map(() => '?').join(',')}) AND NOT EXISTS (SELECT 1 FROM Events e WHERE e.Id = ${table}.EventId)`,
            chunk,
          );
        }
      }
      counts[`${table.toLowerCase()}_removed`] = removed;
      if (ids.length)
        this.o.log.info(
          { job: 'audit', table, events: ids.length, rows: removed, dry_run: this.o.dryRun },
          `${this.o.dryRun ? 'would remove' : 'removed'} ${table} rows of deleted events`,
        );
    }
  }

  /** 3. Closed events without a single frame, older than min_age_seconds. */
  private async deleteEmpty(
    counts: JobCounts,
    storages: Map<number, StorageRow>,
    recovered: Set<number>,
  ): Promise<void> {
    const rows = await this.o.pool.query<EventLocation[]>(
      `SELECT e.Id, e.MonitorId, e.StorageId, e.StartDateTime, e.Scheme FROM Events e
        WHERE e.EndDateTime IS NOT NULL AND e.Archived = 0 AND e.EndDateTime < NOW() - INTERVAL ? SECOND
          AND NOT EXISTS (SELECT 1 FROM Frames f WHERE f.EventId = e.Id)`,
      [this.o.minAgeSeconds],
    );
    counts.empty_deleted = 0;
    counts.empty_kept_with_media = 0;
    counts.empty_refused = 0;
    for (const e of rows) {
      if (recovered.has(Number(e.Id))) continue;
      const dir = eventDirOf(e, storages, this.o.dirEvents);
      // No Frames rows but a recording on disk (Frames lost, not the event): keep it.
      if (dir && (await dirFacts(dir)).hasMedia) {
        counts.empty_kept_with_media += 1;
        this.o.log.warn(
          { job: 'audit', event_id: Number(e.Id), dir },
          'event has no frame rows but its directory holds a recording; kept',
        );
        continue;
      }
      if (this.o.dryRun) {
        counts.empty_deleted += 1;
        this.o.log.info({ job: 'audit', event_id: Number(e.Id), dry_run: true }, 'would delete an empty event');
        continue;
      }
      try {
        await this.deletion.delete(BigInt(e.Id), { reason: 'audit: empty event (no frames)' });
        counts.empty_deleted += 1;
      } catch (err) {
        // The database does not answer: the rest would fail alike, one line each. The pass stops
        // here, and the scheduler logs that once.
        if (toApiError(err).status === 503) throw err;
        counts.empty_refused += 1;
        const level = err instanceof ApiError && err.status === 409 ? 'info' : 'error';
        this.o.log[level](
          { job: 'audit', event_id: Number(e.Id), err: { message: (err as Error).message } },
          'empty event not deleted',
        );
      }
    }
  }

  /** 4. Events.DiskSpace from the files, where ZoneMinder 1.36 left it NULL. */
  private async fillDiskSpace(counts: JobCounts, storages: Map<number, StorageRow>): Promise<void> {
    counts.diskspace_filled = 0;
    counts.diskspace_no_dir = 0;
    let after = 0;
    for (;;) {
      const rows = await this.o.pool.query<EventLocation[]>(
        'SELECT Id, MonitorId, StorageId, StartDateTime, Scheme FROM Events WHERE DiskSpace IS NULL AND EndDateTime IS NOT NULL AND Archived = 0 AND Id > ? ORDER BY Id LIMIT 1000',
        [after],
      );
      if (!rows.length) break;
      after = Number(rows[rows.length - 1].Id);
      for (const e of rows) {
        const dir = eventDirOf(e, storages, this.o.dirEvents);
        const facts = dir ? await dirFacts(dir) : null;
        if (!facts?.exists) {
          counts.diskspace_no_dir += 1;
          continue;
        }
        counts.diskspace_filled += 1;
        if (!this.o.dryRun)
          await this.o.pool.query('UPDATE Events SET DiskSpace = ? WHERE Id = ? AND DiskSpace IS NULL', [
            facts.bytes,
            e.Id,
          ]);
      }
    }
  }

  /**
   * 5a. Event_Summaries: totals and archived figures from Events (SUM is NULL when no event has
   * a known size, as ZoneMinder writes it), the four windows from the bucket tables.
   */
  private async recomputeSummaries(): Promise<number> {
    const totals = await this.o.pool.query<
      Array<{ MonitorId: number; n: number; space: string | null; archived: number; aspace: string | null }>
    >(
      'SELECT MonitorId, COUNT(*) AS n, SUM(DiskSpace) AS space, SUM(Archived = 1) AS archived, SUM(IF(Archived = 1, DiskSpace, NULL)) AS aspace FROM Events GROUP BY MonitorId',
    );
    const byMonitor = new Map(totals.map((t) => [Number(t.MonitorId), t]));
    const rows = await this.o.pool.query<
      Array<{
        MonitorId: number;
        TotalEvents: number | null;
        TotalEventDiskSpace: string | null;
        ArchivedEvents: number | null;
        ArchivedEventDiskSpace: string | null;
      }>
    >(
      'SELECT MonitorId, TotalEvents, TotalEventDiskSpace, ArchivedEvents, ArchivedEventDiskSpace FROM Event_Summaries',
    );
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    let changed = 0;
    for (const r of rows) {
      const t = byMonitor.get(Number(r.MonitorId));
      const want = {
        TotalEvents: Number(t?.n ?? 0),
        TotalEventDiskSpace: num(t?.space),
        ArchivedEvents: Number(t?.archived ?? 0),
        ArchivedEventDiskSpace: num(t?.aspace),
      };
      const diff = (Object.keys(want) as Array<keyof typeof want>).filter((k) => num(r[k]) !== want[k]);
      if (!diff.length) continue;
      changed += 1;
      if (!this.o.dryRun)
        await this.o.pool.query(
          `UPDATE Event_Summaries SET ${diff.map((k) => `${k} = ?`).join(', ')} WHERE MonitorId = ?`,
          [...diff.map((k) => want[k]), r.MonitorId],
        );
    }
    return changed + (await resyncWindowCounters(this.o.pool, this.o.dryRun));
  }

  /** 5b. Storage.DiskSpace = the sum of its events' DiskSpace (NULL when none is known). */
  private async recomputeStorage(): Promise<number> {
    const sums = await this.o.pool.query<Array<{ StorageId: number; space: string | null }>>(
      'SELECT StorageId, SUM(DiskSpace) AS space FROM Events GROUP BY StorageId',
    );
    const byStorage = new Map(sums.map((s) => [Number(s.StorageId), s.space === null ? null : Number(s.space)]));
    const current = await this.o.pool.query<Array<{ Id: number; DiskSpace: string | null }>>(
      'SELECT Id, DiskSpace FROM Storage',
    );
    let changed = 0;
    for (const s of current) {
      const want = byStorage.get(Number(s.Id)) ?? null;
      if ((s.DiskSpace === null ? null : Number(s.DiskSpace)) === want) continue;
      changed += 1;
      if (!this.o.dryRun) await this.o.pool.query('UPDATE Storage SET DiskSpace = ? WHERE Id = ?', [want, s.Id]);
    }
    return changed;
  }
}
