// Builds the maintenance scheduler from the configuration: one job per `maintenance.*` section,
// each switched on by its own `enabled` (all off by default).
import type { AppConfig } from '../../config/types.js';
import type { DbPool } from '../../db/pool.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { Logger } from '../../log.js';
import { EventDeletion } from '../../zm/event-deletion.js';
import { AuditDb } from './audit-db.js';
import { AuditFilesystem } from './audit-fs.js';
import { AuditJob } from './audit-job.js';
import { MaintenanceScheduler, type MaintenanceJob } from './scheduler.js';
import { StatsJob } from './stats-job.js';
import { TelemetryJob } from './telemetry-job.js';
import { parseSeconds, readZmSettings } from './zm-settings.js';
import type { Services } from '../../registry.js';

export { MaintenanceScheduler } from './scheduler.js';

/** ZoneMinder's default ZM_AUDIT_CHECK_INTERVAL. */
const AUDIT_INTERVAL_DEFAULT = 900;

/** The app's maintenance jobs in the registry; the server starts them after listening. */
export const Maintenance = {
  from: (s: Services): MaintenanceScheduler => createMaintenance(s.config, s.log, s.pool, s.prisma),
};

export function createMaintenance(
  config: AppConfig,
  log: Logger,
  pool: DbPool,
  prisma: PrismaClient,
): MaintenanceScheduler {
  const m = config.maintenance;
  const auditInterval = async () =>
    parseSeconds((await readZmSettings(pool, ['ZM_AUDIT_CHECK_INTERVAL'])).get('ZM_AUDIT_CHECK_INTERVAL')) ??
    AUDIT_INTERVAL_DEFAULT;
  const deletion = new EventDeletion(prisma, config.zoneminder.dir_events, log);
  const fs = m.audit.filesystem;
  const filesystem = fs.enabled
    ? new AuditFilesystem({
        pool,
        log,
        dirEvents: config.zoneminder.dir_events,
        dryRun: m.audit.dry_run,
        minAgeSeconds: m.audit.min_age_seconds,
        quarantineRetentionDays: fs.quarantine_retention_days,
        confirmationsRequired: fs.confirmations_required,
        removeRowsWithoutMedia: fs.remove_rows_without_media,
        deletion,
      })
    : null;
  const jobs: MaintenanceJob[] = [
    new StatsJob({ pool, log, enabled: m.stats.enabled, intervalSeconds: m.stats.interval_seconds }),
    new AuditJob(
      m.audit.enabled,
      auditInterval,
      new AuditDb({
        pool,
        prisma,
        log,
        dirEvents: config.zoneminder.dir_events,
        dryRun: m.audit.dry_run,
        minAgeSeconds: m.audit.min_age_seconds,
        deletion,
      }),
      filesystem,
      log,
    ),
    new TelemetryJob({ pool, log, enabled: m.telemetry.enabled, intervalSeconds: m.telemetry.interval_seconds }),
  ];
  return new MaintenanceScheduler(jobs, { log });
}
