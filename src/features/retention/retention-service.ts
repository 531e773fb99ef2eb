// Runs retention passes on a schedule (node-schedule: one job at a time, each pass schedules the
// next `retention.interval_seconds` after it ends, so passes never overlap), once shortly after
// start-up, and answers the status route.
import schedule from 'node-schedule';
import type { AppConfig } from '../../config/types.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { Logger } from '../../log.js';
import { EventDeletion } from '../../zm/event-deletion.js';
import { zoneMinderClock } from '../../zm/event-time.js';
import { DEFAULT_STORAGE_ID } from './retention-queries.js';
import { RetentionPass, type PassReport, type PassSummary } from './retention-pass.js';
import { retentionTargets, type StorageReport, type VolumeMeter } from './retention-storage.js';
import type { Services } from '../../registry.js';

/** The first pass waits this long after start-up, so it does not compete with the start itself. */
const STARTUP_DELAY_MS = 5_000;

export interface RetentionStatus {
  enabled: boolean;
  interval_seconds: number;
  /** When the next pass is scheduled (ISO 8601 UTC), or null when retention is off. */
  next_run: string | null;
  running: boolean;
  /** Limits in force and figures measured now, per Storage. */
  storages: StorageReport[];
  /** The last completed pass of this process (without its deletion list), or null. */
  last_pass: PassSummary | null;
}

export class RetentionService {
  /** One per app, from the registry; the server starts its schedule. */
  static from(s: Services): RetentionService {
    return new RetentionService(s.config, s.prisma, s.log);
  }

  private job: schedule.Job | null = null;
  private running: Promise<PassReport> | null = null;
  private last: PassReport | null = null;
  private stopped = false;
  private readonly pass: RetentionPass;

  constructor(
    private readonly config: AppConfig,
    private readonly prisma: PrismaClient,
    private readonly log: Logger,
    volume?: VolumeMeter,
  ) {
    this.pass = new RetentionPass({
      prisma,
      config: config.retention,
      defaultEventsDir: config.zoneminder.dir_events,
      log,
      clock: zoneMinderClock(prisma, log),
      deletion: new EventDeletion(prisma, config.zoneminder.dir_events, log),
      volume,
    });
  }

  /** Starts the schedule when retention is enabled. */
  start(): void {
    if (!this.config.retention.enabled || this.job || this.stopped) return;
    this.log.info({ interval_seconds: this.config.retention.interval_seconds }, 'retention: enabled');
    this.scheduleAt(new Date(Date.now() + STARTUP_DELAY_MS));
  }

  private scheduleAt(when: Date): void {
    if (this.stopped) return;
    this.job = schedule.scheduleJob(when, () => {
      this.job = null;
      void this.runNow().finally(() =>
        this.scheduleAt(new Date(Date.now() + this.config.retention.interval_seconds * 1000)),
      );
    });
  }

  /** Runs a pass now, or joins the one already running. Never throws. */
  runNow(): Promise<PassReport> {
    this.running ??= this.pass
      .run()
      .catch((err: Error): PassReport => {
        const now = new Date().toISOString();
        this.log.error({ err: { message: err.message } }, 'retention: pass failed');
        return {
          dry_run: false,
          started_at: now,
          finished_at: now,
          outcome: 'aborted',
          error: err.message.slice(0, 200),
          deleted: 0,
          bytes_freed: 0,
          storages: [],
          deletions: [],
        };
      })
      .then((report) => {
        this.last = report;
        return report;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** The last completed pass of this process, without its deletion list (for the metrics), or null. */
  get lastPass(): PassSummary | null {
    return this.last;
  }

  async status(): Promise<RetentionStatus> {
    const targets = await retentionTargets(this.prisma, this.config.zoneminder.dir_events);
    const known = targets.filter((t) => t.id !== DEFAULT_STORAGE_ID).map((t) => t.id);
    const storages: StorageReport[] = [];
    for (const t of targets) {
      const { report } = await this.pass.inspect(t, known);
      storages.push(report);
    }
    const last = this.last ? (({ deletions: _omit, ...rest }) => rest)(this.last) : null;
    const next = this.job?.nextInvocation();
    return {
      enabled: this.config.retention.enabled,
      interval_seconds: this.config.retention.interval_seconds,
      next_run: next ? new Date(next.getTime()).toISOString() : null,
      running: this.running !== null,
      storages,
      last_pass: last,
    };
  }

  /** Stops the schedule and waits for a running pass to end. */
  async close(): Promise<void> {
    this.stopped = true;
    this.job?.cancel();
    this.job = null;
    await this.running?.catch(() => undefined);
  }
}
