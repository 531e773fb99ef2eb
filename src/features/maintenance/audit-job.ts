// The audit job: the database half every pass, then the filesystem half when it is enabled
// (and has not disabled itself). Both halves run in one pass so they never overlap.
import type { Logger } from '../../log.js';
import type { AuditDb } from './audit-db.js';
import type { JobCounts, MaintenanceJob } from './scheduler.js';

/** The filesystem half as the audit job sees it (audit-fs.ts). */
export interface FilesystemHalf {
  run(): Promise<JobCounts>;
  disabledReason(): string | null;
}

export class AuditJob implements MaintenanceJob {
  readonly name = 'audit' as const;
  readonly legacyDaemon = 'zmaudit.pl';

  constructor(
    readonly enabled: boolean,
    /** ZM_AUDIT_CHECK_INTERVAL, read after each pass. */
    private readonly interval: () => Promise<number>,
    private readonly db: AuditDb,
    private readonly fs: FilesystemHalf | null,
    private readonly log: Logger,
  ) {}

  intervalSeconds(): Promise<number> {
    return this.interval();
  }

  filesystemStatus(): { enabled: boolean; disabled_reason: string | null } {
    return { enabled: this.fs !== null, disabled_reason: this.fs?.disabledReason() ?? null };
  }

  async run(): Promise<JobCounts> {
    const counts = await this.db.run();
    if (!this.fs) return counts;
    if (this.fs.disabledReason()) {
      this.log.error(
        { job: 'audit', reason: this.fs.disabledReason() },
        'the audit filesystem half is disabled; fix the cause and restart zmgate to re-enable it',
      );
      return { ...counts, fs_disabled: 1 };
    }
    const fsCounts = await this.fs.run();
    return { ...counts, ...Object.fromEntries(Object.entries(fsCounts).map(([k, v]) => [`fs_${k}`, v])) };
  }
}
