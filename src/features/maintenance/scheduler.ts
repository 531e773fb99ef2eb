// Runs each maintenance job on its own node-schedule timer. A job's next run is scheduled when
// its current run ends, so a job never runs twice at once, and a slow pass delays the next one
// instead of piling up. Every pass records what it did (counts), how long it took and its
// error, for GET /api/v3/maintenance/status.
import schedule from 'node-schedule';
import type { Logger } from '../../log.js';
import { findLegacyDaemons } from './legacy-daemons.js';

export type JobName = 'stats' | 'audit' | 'telemetry';

/** What one pass did: counters by name. */
export type JobCounts = Record<string, number>;

export interface MaintenanceJob {
  name: JobName;
  enabled: boolean;
  /** The ZoneMinder daemon this job replaces (warned about when both run). */
  legacyDaemon: string;
  /** Seconds until the next pass; read after every pass (telemetry takes it from ZoneMinder's settings). */
  intervalSeconds(): Promise<number> | number;
  run(): Promise<JobCounts>;
  /** The audit job's filesystem half. */
  filesystemStatus?(): FilesystemStatus;
}

export interface FilesystemStatus {
  enabled: boolean;
  /** Set when the canary switched the half off, with the reason. */
  disabled_reason: string | null;
}

export interface JobStatus {
  name: JobName;
  enabled: boolean;
  running: boolean;
  /** ISO times; null before the first pass. */
  last_run_started_at: string | null;
  last_run_finished_at: string | null;
  last_duration_ms: number | null;
  /** What the last pass did. */
  last_counts: JobCounts | null;
  /** The last pass's failure, null when it succeeded. */
  last_error: string | null;
  next_run_at: string | null;
  runs: number;
  /** The legacy daemon replaced by this job. */
  legacy_daemon: string;
  /** Whether that daemon was seen running at start or at the last pass. */
  legacy_daemon_running: boolean;
  /** The audit job only: its filesystem half. */
  filesystem?: FilesystemStatus;
}

interface Slot {
  job: MaintenanceJob;
  /** The interval the job last gave (used while it cannot be read, e.g. during an outage). */
  interval: number | null;
  status: JobStatus;
  timer: schedule.Job | null;
  current: Promise<JobCounts> | null;
}

export interface SchedulerOptions {
  log: Logger;
  /** Delay of each job's first pass (seconds); a job starting with the service should not slow its start. */
  firstRunDelaySeconds?: number;
  /** Where to look for legacy daemons (tests pass a directory shaped like /proc). */
  procRoot?: string;
}

/** The next pass's delay when a job's interval was never read. */
const UNREADABLE_INTERVAL_SECONDS = 60;

export class MaintenanceScheduler {
  private readonly slots: Slot[];
  private stopped = false;

  constructor(
    jobs: MaintenanceJob[],
    private readonly options: SchedulerOptions,
  ) {
    this.slots = jobs.map((job) => ({
      job,
      interval: null,
      timer: null,
      current: null,
      status: {
        name: job.name,
        enabled: job.enabled,
        running: false,
        last_run_started_at: null,
        last_run_finished_at: null,
        last_duration_ms: null,
        last_counts: null,
        last_error: null,
        next_run_at: null,
        runs: 0,
        legacy_daemon: job.legacyDaemon,
        legacy_daemon_running: false,
      },
    }));
  }

  /** Schedules the first pass of every enabled job. */
  start(): void {
    const enabled = this.slots.filter((s) => s.job.enabled);
    if (enabled.length) {
      this.options.log.info({ jobs: enabled.map((s) => s.job.name) }, 'maintenance jobs enabled');
      this.warnLegacy(enabled);
    }
    for (const slot of enabled) this.scheduleNext(slot, this.options.firstRunDelaySeconds ?? 30);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const slot of this.slots) {
      slot.timer?.cancel();
      slot.timer = null;
      slot.status.next_run_at = null;
    }
    await Promise.allSettled(this.slots.map((s) => s.current));
  }

  status(): JobStatus[] {
    return this.slots.map((s) => ({
      ...s.status,
      ...(s.job.filesystemStatus && { filesystem: s.job.filesystemStatus() }),
    }));
  }

  /**
   * Runs one pass of `name` now, or joins the pass already running (never two at once).
   * Errors are recorded in the status, not thrown.
   */
  runNow(name: JobName): Promise<JobCounts> {
    const slot = this.slots.find((s) => s.job.name === name);
    if (!slot) throw new Error(`no maintenance job ${name}`);
    slot.current ??= this.runPass(slot).finally(() => {
      slot.current = null;
    });
    return slot.current;
  }

  private async runPass(slot: Slot): Promise<JobCounts> {
    const { status, job } = slot;
    const started = Date.now();
    status.running = true;
    status.last_run_started_at = new Date(started).toISOString();
    try {
      const counts = await job.run();
      status.last_counts = counts;
      status.last_error = null;
      this.options.log.info({ job: job.name, counts, duration_ms: Date.now() - started }, 'maintenance pass done');
      return counts;
    } catch (err) {
      status.last_error = (err as Error).message;
      // A pass whose steps partly failed still reports what the other steps did.
      status.last_counts = (err as { counts?: JobCounts }).counts ?? null;
      this.options.log.error(
        { job: job.name, err: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code } },
        'maintenance pass failed',
      );
      return {};
    } finally {
      status.running = false;
      status.runs += 1;
      status.last_duration_ms = Date.now() - started;
      status.last_run_finished_at = new Date().toISOString();
    }
  }

  private scheduleNext(slot: Slot, seconds: number): void {
    if (this.stopped) return;
    const at = new Date(Date.now() + Math.max(1, seconds) * 1000);
    slot.status.next_run_at = at.toISOString();
    slot.timer = schedule.scheduleJob(at, () => {
      slot.timer = null;
      slot.status.next_run_at = null;
      void this.runNow(slot.job.name).then(async () => {
        this.warnLegacy([slot]);
        let interval: number;
        try {
          interval = await slot.job.intervalSeconds();
          slot.interval = interval;
        } catch (err) {
          // Unreadable (the database is away): the interval last read, or a minute before ever.
          interval = slot.interval ?? UNREADABLE_INTERVAL_SECONDS;
          this.options.log.warn(
            { job: slot.job.name, err: { message: (err as Error).message }, next_in_seconds: interval },
            'maintenance interval unreadable; the next pass keeps the last known interval',
          );
        }
        this.scheduleNext(slot, interval);
      });
    });
  }

  private warnLegacy(slots: Slot[]): void {
    const running = findLegacyDaemons(this.options.procRoot);
    for (const slot of slots) {
      slot.status.legacy_daemon_running = running.has(slot.job.legacyDaemon);
      if (slot.status.legacy_daemon_running) {
        this.options.log.warn(
          { job: slot.job.name, daemon: slot.job.legacyDaemon },
          `maintenance job ${slot.job.name} is enabled while ZoneMinder's ${slot.job.legacyDaemon} is running: disable ${slot.job.legacyDaemon} (both compete over the same rows)`,
        );
      }
    }
  }
}
