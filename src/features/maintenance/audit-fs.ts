// The filesystem half of the audit (zmaudit.pl's directory reconciliation, made safe; see
// docs/operations/maintenance.md). Per Storage root, one pass:
//   1. Refuses the root when it is missing, not a directory, or holds no monitor directory
//      (an unmounted disk looks exactly like "every event is an orphan").
//   2. Walks <root>/<MonitorId>/… and identifies event directories by the evidence inside:
//      a video named with the event id, the Shallow marker `.<Id>`, the Deep link
//      `dd/.<Id> -> HH/MM/SS`, or a numeric leaf where the scheme puts the id (Shallow
//      `<M>/<Id>`, Medium `<M>/<YYYY-MM-DD>/<Id>`). Directories with recordings or files but no
//      (or conflicting) evidence are reported as unidentified and left alone.
//   3. Canary: for identified directories that have rows, and for a sample of recent rows, the
//      path computed from the row must be the real one. When most disagree (wrong root, time
//      zone, scheme), nothing is moved in that pass; after `confirmationsRequired` such passes
//      in a row the half disables itself until restart and says so loudly.
//   4. An orphan (identified, no row) seen in `confirmationsRequired` consecutive passes and older
//      than min_age is moved by one rename() into <root>/.zmgate-quarantine/ (same filesystem,
//      atomic); quarantined entries older than the retention days are removed.
//   5. Rows whose directory is missing are reported, and deleted through the event deletion
//      path only with removeRowsWithoutMedia.
// Only paths the walk enumerated are ever moved; nothing outside a Storage root is touched;
// archived events have rows, so their media is never an orphan.
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import type { EventDeletion } from '../../zm/event-deletion.js';
import { eventDirOf, loadStorages, type EventLocation, type StorageRow } from './audit-db.js';
import type { FilesystemHalf } from './audit-job.js';
import { errno, rootRefusal, walkStorage, type Found } from './audit-walk.js';
import type { JobCounts } from './scheduler.js';

export const QUARANTINE_DIR = '.zmgate-quarantine';
const STAMP = /^(\d{8}T\d{6}Z)\./;
/** Rows checked by the canary's sample per root. */
const CANARY_SAMPLE = 20;
const ID_CHUNK = 1000;

export interface AuditFsOptions {
  pool: DbPool;
  log: Logger;
  dirEvents: string;
  dryRun: boolean;
  minAgeSeconds: number;
  quarantineRetentionDays: number;
  confirmationsRequired: number;
  removeRowsWithoutMedia: boolean;
  deletion: EventDeletion;
  /** The clock (tests move it forward to see the sweep). */
  now?: () => Date;
}

interface Root {
  path: string;
  storageIds: number[];
}

const stampOf = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
const parseStamp = (s: string) =>
  new Date(
    `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`,
  );

export class AuditFilesystem implements FilesystemHalf {
  /** Orphan directories seen in the last pass: path -> consecutive sightings. */
  private sightings = new Map<string, { id: number; passes: number }>();
  private strikes = 0;
  private disabled: string | null = null;
  private readonly now: () => Date;

  constructor(private readonly o: AuditFsOptions) {
    this.now = o.now ?? (() => new Date());
  }

  disabledReason(): string | null {
    return this.disabled;
  }

  async run(): Promise<JobCounts> {
    const counts: JobCounts = {
      storage_refused: 0,
      event_dirs: 0,
      unidentified: 0,
      orphans_seen: 0,
      quarantined: 0,
      swept: 0,
      misplaced: 0,
      rows_without_media: 0,
      rows_without_media_deleted: 0,
      canary_disagreed: 0,
    };
    const storages = await loadStorages(this.o.pool);
    const previous = this.sightings;
    this.sightings = new Map();
    let disagreed = false;
    for (const root of this.roots(storages)) {
      const refusal = await rootRefusal(root.path);
      if (refusal) {
        counts.storage_refused += 1;
        this.o.log.warn(
          { job: 'audit', storage: root.path, storage_ids: root.storageIds, reason: refusal },
          'audit filesystem pass refused this storage',
        );
        continue;
      }
      counts.swept += await this.sweep(root.path);
      const walk = await walkStorage(root.path);
      counts.event_dirs += walk.found.length;
      counts.unidentified += walk.unidentified.length;
      for (const dir of walk.unidentified.slice(0, 20))
        this.o.log.info({ job: 'audit', dir }, 'unidentified directory in event storage; left alone');
      const rows = await this.rowsOf(walk.found.map((f) => f.id));
      // Canary: computed paths of rows against the real ones.
      let agree = 0;
      let disagree = 0;
      const orphans: Found[] = [];
      for (const f of walk.found) {
        const row = rows.get(f.id);
        if (!row) {
          orphans.push(f);
          continue;
        }
        if (eventDirOf(row, storages, this.o.dirEvents) === f.dir) agree += 1;
        else {
          disagree += 1;
          counts.misplaced += 1;
          this.o.log.warn(
            { job: 'audit', event_id: f.id, found: f.dir, computed: eventDirOf(row, storages, this.o.dirEvents) },
            'event directory is not where its row says',
          );
        }
      }
      const sample = await this.canarySample(root);
      for (const e of sample) {
        if (existsSync(eventDirOf(e, storages, this.o.dirEvents) ?? '\0')) agree += 1;
        else disagree += 1;
      }
      if (agree + disagree >= 3 && disagree > agree) {
        disagreed = true;
        counts.canary_disagreed += 1;
        this.o.log.error(
          { job: 'audit', storage: root.path, agree, disagree },
          'audit canary: computed event paths disagree with the disk; nothing is moved in this storage',
        );
        continue;
      }
      counts.orphans_seen += orphans.length;
      for (const f of orphans) await this.handleOrphan(f, root.path, previous, counts);
      await this.rowsWithoutMedia(root, storages, new Set(walk.found.map((f) => f.dir)), counts);
    }
    this.strikes = disagreed ? this.strikes + 1 : 0;
    if (this.strikes >= this.o.confirmationsRequired) {
      this.disabled = `canary: computed event paths disagreed with the disk in ${this.strikes} consecutive passes (check Storage.Path, the time zone and the storage scheme)`;
      this.o.log.fatal(
        { job: 'audit', reason: this.disabled },
        'AUDIT FILESYSTEM HALF DISABLED: computed event paths keep disagreeing with the disk; nothing will be moved until zmgate is restarted',
      );
    }
    return counts;
  }

  /** Storage roots to walk: local Storage rows, and ZM_DIR_EVENTS for StorageId 0. */
  private roots(storages: Map<number, StorageRow>): Root[] {
    const byPath = new Map<string, number[]>();
    for (const s of storages.values()) {
      if (s.Type === 's3fs' || !s.Path) continue;
      const p = path.resolve(s.Path);
      byPath.set(p, [...(byPath.get(p) ?? []), Number(s.Id)]);
    }
    const def = path.resolve(this.o.dirEvents);
    byPath.set(def, [...(byPath.get(def) ?? []), 0]);
    return [...byPath].map(([p, storageIds]) => ({ path: p, storageIds }));
  }

  private async rowsOf(ids: number[]): Promise<Map<number, EventLocation & { Archived: number }>> {
    const out = new Map<number, EventLocation & { Archived: number }>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = await this.o.pool.query<Array<EventLocation & { Archived: number }>>(
        `SELECT Id, MonitorId, StorageId, StartDateTime, Scheme, Archived FROM Events WHERE Id IN (${chunk.map(() => '?').join(',')})`,
        chunk,
      );
      for (const r of rows) out.set(Number(r.Id), r);
    }
    return out;
  }

  private storageFilter(root: Root): { sql: string; params: number[] } {
    const ids = root.storageIds;
    const sql = `(StorageId IN (${ids.map(() => '?').join(',')})${ids.includes(0) ? ' OR StorageId IS NULL OR StorageId NOT IN (SELECT Id FROM Storage)' : ''})`;
    return { sql, params: ids };
  }

  private async canarySample(root: Root): Promise<EventLocation[]> {
    const f = this.storageFilter(root);
    return this.o.pool.query<EventLocation[]>(
      `SELECT Id, MonitorId, StorageId, StartDateTime, Scheme FROM Events WHERE ${f.sql} AND EndDateTime IS NOT NULL AND EndDateTime < NOW() - INTERVAL ? SECOND ORDER BY Id DESC LIMIT ${CANARY_SAMPLE}`,
      [...f.params, this.o.minAgeSeconds],
    );
  }

  private async handleOrphan(
    f: Found,
    root: string,
    previous: Map<string, { id: number; passes: number }>,
    counts: JobCounts,
  ): Promise<void> {
    let mtime: number;
    try {
      mtime = (await lstat(f.dir)).mtimeMs;
    } catch {
      return; // vanished since the walk
    }
    if (this.o.minAgeSeconds > 0 && this.now().getTime() - mtime < this.o.minAgeSeconds * 1000) return;
    const before = previous.get(f.dir);
    const passes = before && before.id === f.id ? before.passes + 1 : 1;
    this.sightings.set(f.dir, { id: f.id, passes });
    if (passes < this.o.confirmationsRequired) {
      this.o.log.info(
        { job: 'audit', dir: f.dir, event_id: f.id, passes, required: this.o.confirmationsRequired },
        'orphan event directory (no row) seen; waiting for confirmation',
      );
      return;
    }
    if (this.o.dryRun) {
      counts.quarantined += 1;
      this.o.log.info(
        { job: 'audit', dir: f.dir, event_id: f.id, dry_run: true },
        'would quarantine an orphan event directory',
      );
      return;
    }
    // The row may have appeared since the walk (never for a real orphan, but cheap to ask).
    if ((await this.o.pool.query('SELECT 1 FROM Events WHERE Id = ?', [f.id])).length) return;
    const qdir = path.join(root, QUARANTINE_DIR);
    const target = path.join(qdir, `${stampOf(this.now())}.${path.relative(root, f.dir).split(path.sep).join('~')}`);
    try {
      await mkdir(qdir, { recursive: true });
      await rename(f.dir, target);
    } catch (err) {
      counts.quarantine_failed = (counts.quarantine_failed ?? 0) + 1;
      this.o.log.error(
        { job: 'audit', dir: f.dir, err: { code: errno(err), message: (err as Error).message } },
        'orphan event directory could not be moved to quarantine; left in place',
      );
      return;
    }
    this.sightings.delete(f.dir);
    counts.quarantined += 1;
    this.o.log.warn(
      {
        job: 'audit',
        event_id: f.id,
        dir: f.dir,
        quarantined_to: target,
        retention_days: this.o.quarantineRetentionDays,
      },
      'orphan event directory moved to quarantine',
    );
    if (f.link) await unlink(f.link).catch(() => undefined);
    // Parents left empty go, up to (never including) the monitor directory.
    const monitorDir = path.join(root, path.relative(root, f.dir).split(path.sep)[0]);
    for (let d = path.dirname(f.dir); d.startsWith(monitorDir + path.sep); d = path.dirname(d)) {
      if (
        !(await rmdir(d).then(
          () => true,
          () => false,
        ))
      )
        break;
    }
  }

  /** Removes quarantined entries older than the retention days. */
  private async sweep(root: string): Promise<number> {
    const qdir = path.join(root, QUARANTINE_DIR);
    const entries = await readdir(qdir).catch(() => [] as string[]);
    const limit = this.now().getTime() - this.o.quarantineRetentionDays * 86_400_000;
    let swept = 0;
    for (const name of entries) {
      const m = STAMP.exec(name);
      if (!m || !(parseStamp(m[1]).getTime() < limit)) continue;
      if (!this.o.dryRun) {
        try {
          await rm(path.join(qdir, name), { recursive: true, force: true });
        } catch (err) {
          this.o.log.error(
            { job: 'audit', entry: path.join(qdir, name), err: { message: (err as Error).message } },
            'quarantined directory could not be swept',
          );
          continue;
        }
      }
      swept += 1;
      this.o.log.info(
        { job: 'audit', entry: path.join(qdir, name), dry_run: this.o.dryRun },
        'quarantined directory swept after the retention days',
      );
    }
    return swept;
  }

  /** Closed, unarchived rows of this root older than min_age whose directory does not exist. */
  private async rowsWithoutMedia(
    root: Root,
    storages: Map<number, StorageRow>,
    found: Set<string>,
    counts: JobCounts,
  ): Promise<void> {
    const f = this.storageFilter(root);
    let after = 0;
    let reported = 0;
    for (;;) {
      const rows = await this.o.pool.query<EventLocation[]>(
        `SELECT Id, MonitorId, StorageId, StartDateTime, Scheme FROM Events WHERE ${f.sql} AND Id > ? AND EndDateTime IS NOT NULL AND Archived = 0 AND EndDateTime < NOW() - INTERVAL ? SECOND ORDER BY Id LIMIT 5000`,
        [...f.params, after, this.o.minAgeSeconds],
      );
      if (!rows.length) {
        if (reported > 20)
          this.o.log.info(
            { job: 'audit', root: root.path, rows: reported },
            `${reported} event rows without media in this storage (the first 20 are logged above)`,
          );
        return;
      }
      after = Number(rows[rows.length - 1].Id);
      for (const e of rows) {
        const dir = eventDirOf(e, storages, this.o.dirEvents);
        if (!dir || found.has(dir) || existsSync(dir)) continue;
        counts.rows_without_media += 1;
        if (!this.o.removeRowsWithoutMedia || this.o.dryRun) {
          // The first 20 by name, then one count: a lost disk must not log a line per event per pass.
          if (++reported <= 20)
            this.o.log.info(
              { job: 'audit', event_id: Number(e.Id), dir },
              'event row without media (its directory is missing)',
            );
          continue;
        }
        try {
          await this.o.deletion.delete(BigInt(e.Id), { reason: 'audit: row without media' });
          counts.rows_without_media_deleted += 1;
        } catch (err) {
          this.o.log.info(
            { job: 'audit', event_id: Number(e.Id), err: { message: (err as Error).message } },
            'row without media not deleted',
          );
        }
      }
    }
  }
}
