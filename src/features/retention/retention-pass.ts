// One retention pass: for each Storage (and ZM_DIR_EVENTS for events without one), while a limit
// is breached, delete whole events oldest first (StartDateTime, then Id) through the one event
// deletion path, re-measuring the volume's free space after every deletion. The rules and the
// crash ordering are in docs/operations/retention.md; the guarantees, briefly:
//   - never: archived, locked, unfinished (no EndDateTime, or a file of it open in any process),
//     the newest event of its monitor, anything of a Storage with DoDelete = 0;
//   - nothing at all when the Storage path is unusable, missing, not a directory, holds no
//     monitor folder while it has events (an unmounted NAS), or changes device mid-pass;
//   - a free-space reading that fails skips that Storage (never read as "full" or "empty");
//   - any database error ends the pass; the deletion path leaves that event whole.
// A dry run takes the same decisions, counts each planned deletion's bytes as freed instead of
// re-measuring, and writes nothing.
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../../config/types.js';
import { toLocalDateTimeString } from '../../db/datetime.js';
import type { PrismaClient } from '../../db/prisma.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { EventDeletion } from '../../zm/event-deletion.js';
import { eventPaths } from '../../zm/event-paths.js';
import type { ZoneClock } from '../../zm/event-time.js';
import { dropNote, noteDeletion, recoverNotes } from './journal.js';
import { unmatchedOverrides, type LimitName } from './limits.js';
import { candidatePage, DEFAULT_STORAGE_ID, newestEventOf, type CandidateRow } from './retention-queries.js';
import {
  breachedLimits,
  errText,
  inspectStorage,
  retentionTargets,
  statfsMeter,
  type Inspected,
  type StorageReport,
  type StorageTarget,
  type VolumeMeter,
} from './retention-storage.js';

export interface DeletionRecord {
  event_id: number;
  monitor_id: number;
  storage_id: number;
  /** ZoneMinder wall-clock start, as stored. */
  start: string;
  /** The limit named in the log (the first breached of free_space_floor, quota, max_age). */
  limit: LimitName;
  breached: LimitName[];
  /** Bytes the event's folder held (0 when it was already gone). */
  bytes: number;
  disk_space: number | null;
  free_bytes_before: number | null;
  floor_bytes: number | null;
  used_bytes_before: number | null;
  quota_bytes: number | null;
  /** Wall-clock cutoff of max_age, when set. */
  age_cutoff: string | null;
}

export interface PassSummary {
  dry_run: boolean;
  started_at: string;
  finished_at: string;
  /** 'aborted' when a database error ended the pass early. */
  outcome: 'completed' | 'aborted';
  error: string | null;
  deleted: number;
  bytes_freed: number;
  storages: StorageReport[];
}

export interface PassReport extends PassSummary {
  deletions: DeletionRecord[];
}

export interface PassProgress {
  storage: StorageReport;
  index: number;
  count: number;
  /** 0..1 toward the Storage's free-space and quota limits, when one is breached. */
  fraction: number | null;
}

export interface RetentionPassDeps {
  prisma: PrismaClient;
  config: AppConfig['retention'];
  /** ZM_DIR_EVENTS: the root of events without a Storage row. */
  defaultEventsDir: string;
  log: Logger;
  clock: () => Promise<ZoneClock>;
  /** The shared deletion path; not used by a dry run. */
  deletion: EventDeletion | null;
  volume?: VolumeMeter;
  /** Page size of the candidate query. */
  pageSize?: number;
}

/** Bytes a folder occupies on disk (allocated blocks; hard links counted once). */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  const seen = new Set<string>();
  const walk = async (d: string) => {
    let entries;
    try {
      entries = await fsp.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      const st = await fsp.lstat(p).catch(() => null);
      if (!st) continue;
      const key = `${st.dev}:${st.ino}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total += st.blocks * 512;
      if (st.isDirectory()) await walk(p);
    }
  };
  await walk(dir);
  return total;
}

/**
 * Every file open in any process that lies under `realRoot`, from /proc/<pid>/fd. `complete`
 * is false when some process's descriptors could not be read (another user's, without root).
 */
export async function openFilesUnder(realRoot: string): Promise<{ paths: string[]; complete: boolean }> {
  const paths: string[] = [];
  let complete = true;
  const pids = (await fsp.readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  if (!pids.length) return { paths, complete: false };
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = await fsp.readdir(`/proc/${pid}/fd`);
    } catch (err) {
      if (errText(err) !== 'ENOENT') complete = false; // exited meanwhile is fine
      continue;
    }
    for (const fd of fds) {
      const target = await fsp.readlink(`/proc/${pid}/fd/${fd}`).catch(() => null);
      if (target && target.startsWith(realRoot + path.sep)) paths.push(target);
    }
  }
  return { paths, complete };
}

export class RetentionPass {
  private readonly volume: VolumeMeter;

  constructor(private readonly deps: RetentionPassDeps) {
    this.volume = deps.volume ?? statfsMeter;
  }

  /** One Storage as the pass would find it, changing nothing (retention-storage.ts). */
  inspect(target: StorageTarget, known: number[]): Promise<Inspected> {
    return inspectStorage(this.deps, this.volume, target, known);
  }

  async run(options: { dryRun?: boolean; onProgress?: (p: PassProgress) => void } = {}): Promise<PassReport> {
    const { prisma, log } = this.deps;
    const dryRun = options.dryRun ?? false;
    if (!dryRun && !this.deps.deletion) throw new Error('a retention pass that deletes needs the deletion path');
    const pass: PassReport = {
      dry_run: dryRun,
      started_at: new Date().toISOString(),
      finished_at: '',
      outcome: 'completed',
      error: null,
      deleted: 0,
      bytes_freed: 0,
      storages: [],
      deletions: [],
    };
    const started = Date.now();
    try {
      const targets = await retentionTargets(prisma, this.deps.defaultEventsDir);
      const known = targets.filter((t) => t.id !== DEFAULT_STORAGE_ID).map((t) => t.id);
      for (const name of unmatchedOverrides(this.deps.config.overrides, targets)) {
        log.warn({ storage: name.slice(0, 64) }, 'retention: an override names no Storage row; it is ignored');
      }
      const clock = await this.deps.clock();
      const newest = new Map<number, bigint | null>();
      for (const [index, target] of targets.entries()) {
        const inspected = await this.inspect(target, known);
        pass.storages.push(inspected.report);
        if (inspected.report.state !== 'ok') {
          const level = inspected.report.state === 'refused' || inspected.report.state === 'error' ? 'error' : 'debug';
          log[level](
            {
              storage_id: target.id,
              storage: target.name,
              path: target.root,
              state: inspected.report.state,
              reason: inspected.report.reason,
            },
            'retention: storage not processed',
          );
          continue;
        }
        if (!dryRun && inspected.realRoot) await recoverNotes(prisma, inspected.realRoot, target.root, log);
        const aborted = await this.processStorage(inspected, clock, newest, pass, dryRun, (fraction) =>
          options.onProgress?.({ storage: inspected.report, index, count: targets.length, fraction }),
        );
        // A deletion that failed on this Storage ends its part of the pass, not the others'.
        if (aborted) {
          pass.outcome = 'aborted';
          pass.error ??= aborted;
        }
      }
    } catch (err) {
      pass.outcome = 'aborted';
      pass.error = `database error: ${(err as Error).message.split('\n')[0].slice(0, 200)}`;
      log.error({ err: { message: (err as Error).message } }, 'retention: pass ended by an error');
    }
    pass.finished_at = new Date().toISOString();
    log.info(
      {
        dry_run: dryRun,
        outcome: pass.outcome,
        error: pass.error,
        deleted: pass.deleted,
        bytes_freed: pass.bytes_freed,
        duration_ms: Date.now() - started,
        storages: pass.storages.map((s) => ({
          id: s.storage_id,
          state: s.state,
          deleted: s.deleted,
          bytes_freed: s.bytes_freed,
          kept: s.kept,
          breached: s.breached,
        })),
      },
      dryRun ? 'retention: dry run finished' : 'retention: pass finished',
    );
    return pass;
  }

  /** Deletes from one inspected Storage; returns an error text when the pass must end. */
  private async processStorage(
    inspected: Inspected,
    clock: ZoneClock,
    newest: Map<number, bigint | null>,
    pass: PassReport,
    dryRun: boolean,
    progress: (fraction: number | null) => void,
  ): Promise<string | null> {
    const { prisma, log } = this.deps;
    const { report, limits, cond } = inspected;
    const root = report.path;
    const m = report.measured;
    // Age is ZoneMinder wall-clock now minus max_age, compared with stored wall-clock starts.
    const cutoff = limits.maxAgeSeconds !== null ? new Date(clock.now().getTime() - limits.maxAgeSeconds * 1000) : null;
    const startFree = m.free_bytes ?? 0;
    const startUsed = m.used_bytes ?? 0;
    const fraction = (): number | null => {
      const parts: number[] = [];
      if (m.floor_bytes !== null && m.free_bytes !== null && m.floor_bytes > startFree)
        parts.push((m.free_bytes - startFree) / (m.floor_bytes - startFree));
      if (limits.quotaBytes !== null && m.used_bytes !== null && startUsed > limits.quotaBytes)
        parts.push((startUsed - m.used_bytes) / (startUsed - limits.quotaBytes));
      return parts.length ? Math.max(0, Math.min(1, Math.min(...parts))) : null;
    };
    let open: { paths: string[]; complete: boolean } | null = null;
    let after: { start: Date; id: bigint } | null = null;
    const pageSize = this.deps.pageSize ?? 200;
    const keep = (c: CandidateRow, why: string) => {
      report.kept++;
      log.debug({ event_id: Number(c.Id), storage_id: report.storage_id, why }, 'retention: event kept');
    };

    for (;;) {
      if (!breachedLimits(limits, m, null, null).length && !cutoff) break; // nothing can be breached
      const page = await candidatePage(prisma, cond, after, pageSize);
      if (!page.length) break;
      for (const c of page) {
        after = { start: c.StartDateTime, id: BigInt(c.Id) };
        const breached = breachedLimits(limits, m, c.StartDateTime, cutoff);
        if (!breached.length) {
          report.breached = [];
          return null; // oldest first: every later event is newer, and the volume limits hold
        }
        const id = BigInt(c.Id);
        if (!newest.has(c.MonitorId)) newest.set(c.MonitorId, await newestEventOf(prisma, c.MonitorId));
        if (newest.get(c.MonitorId) === id) {
          keep(c, 'the newest event of its monitor');
          continue;
        }
        const paths = eventPaths(
          { id, monitorId: c.MonitorId, startDateTime: c.StartDateTime, scheme: c.Scheme },
          root,
        );
        let realDir: string | null = null;
        try {
          realDir = await fsp.realpath(paths.eventDir);
        } catch (err) {
          if (errText(err) !== 'ENOENT') {
            keep(c, `its folder cannot be read (${errText(err)})`);
            continue;
          }
        }
        if (realDir !== null) {
          if (!inspected.realRoot || !realDir.startsWith(inspected.realRoot + path.sep)) {
            log.warn(
              { event_id: Number(id), storage_id: report.storage_id, dir: paths.eventDir },
              'retention: event folder resolves outside its storage root; kept',
            );
            report.kept++;
            continue;
          }
          const names = await fsp.readdir(realDir).catch(() => [] as string[]);
          open ??= await openFilesUnder(inspected.realRoot);
          const inUse = open.paths.some((p) => p.startsWith(realDir + path.sep));
          if (inUse || (!open.complete && names.some((n) => n.startsWith('incomplete.')))) {
            keep(c, 'a file of it is open (still being recorded)');
            continue;
          }
        }
        // An unmounted or swapped volume mid-pass must not turn into rows deleted without media.
        const now = await fsp.stat(root).catch(() => null);
        if (!now || !now.isDirectory() || Number(now.dev) !== inspected.dev) {
          report.state = 'refused';
          report.reason = 'the storage path changed during the pass (unmounted?); stopped';
          log.error(
            { storage_id: report.storage_id, path: root },
            'retention: storage path changed during the pass; stopped',
          );
          return null;
        }
        const bytes = realDir ? await dirBytes(realDir) : 0;
        const diskSpace = c.DiskSpace === null ? null : Number(c.DiskSpace);
        const record: DeletionRecord = {
          event_id: Number(id),
          monitor_id: c.MonitorId,
          storage_id: report.storage_id,
          start: toLocalDateTimeString(c.StartDateTime) ?? '',
          limit: breached[0],
          breached,
          bytes,
          disk_space: diskSpace,
          free_bytes_before: m.free_bytes,
          floor_bytes: m.floor_bytes,
          used_bytes_before: m.used_bytes,
          quota_bytes: limits.quotaBytes,
          age_cutoff: cutoff ? toLocalDateTimeString(cutoff) : null,
        };
        let freedDiskSpace = diskSpace;
        if (!dryRun) {
          try {
            await noteDeletion(
              inspected.realRoot!,
              id,
              path.join(inspected.realRoot!, path.relative(root, path.dirname(paths.eventDir))),
            );
            const outcome = await this.deps.deletion!.delete(id, { reason: `retention:${breached[0]}` });
            await dropNote(inspected.realRoot!, id);
            freedDiskSpace = outcome.diskSpace;
          } catch (err) {
            await dropNote(inspected.realRoot!, id);
            if (err instanceof ConflictError || err instanceof NotFoundError) {
              keep(c, err.message);
              continue;
            }
            const text = `event ${id} was not deleted: ${(err as Error).message.split('\n')[0].slice(0, 200)}`;
            report.state = 'error';
            report.reason = text;
            log.error(
              { event_id: Number(id), storage_id: report.storage_id, err: { message: (err as Error).message } },
              "retention: deletion failed; this storage's part of the pass ends here",
            );
            return text;
          }
        }
        report.deleted++;
        report.bytes_freed += bytes;
        pass.deleted++;
        pass.bytes_freed += bytes;
        pass.deletions.push(record);
        log.info(
          {
            event_id: record.event_id,
            monitor_id: record.monitor_id,
            storage_id: record.storage_id,
            storage: report.name,
            bytes_freed: bytes,
            limit: record.limit,
            breached,
            free_bytes: m.free_bytes,
            floor_bytes: m.floor_bytes,
            used_bytes: m.used_bytes,
            quota_bytes: limits.quotaBytes,
            start: record.start,
            dry_run: dryRun,
          },
          dryRun ? 'retention: would delete event' : 'retention: event deleted',
        );
        // Re-measure: the volume is the truth (other writers, delayed frees); a dry run adds.
        if (m.used_bytes !== null) m.used_bytes = Math.max(0, m.used_bytes - (freedDiskSpace ?? bytes));
        if (m.free_bytes !== null) {
          if (dryRun) m.free_bytes += bytes;
          else {
            try {
              m.free_bytes = (await this.volume(root)).free;
            } catch (err) {
              report.state = 'error';
              report.reason = `the free space could not be measured again (${errText(err)}); stopped`;
              log.error(
                { storage_id: report.storage_id, err: { message: errText(err) } },
                'retention: free space unreadable mid-pass; storage skipped',
              );
              return null;
            }
          }
        }
        progress(fraction());
      }
    }
    report.breached = breachedLimits(limits, m, null, null);
    if (report.breached.length) {
      log.warn(
        {
          storage_id: report.storage_id,
          storage: report.name,
          breached: report.breached,
          free_bytes: m.free_bytes,
          floor_bytes: m.floor_bytes,
          used_bytes: m.used_bytes,
          quota_bytes: limits.quotaBytes,
        },
        'retention: limit still breached and nothing more may be deleted',
      );
    }
    return null;
  }
}
