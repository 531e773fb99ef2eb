// Monitor_Status: the capture daemon's heartbeat row per monitor (status, fps, bandwidth),
// filtered by the row-level ACL. FPS values are decimal strings, as v3 clients read them.
import type { AuthUser } from '../../auth/auth-service.js';
import {
  requireEditableMonitor,
  requireVisibleMonitor,
  monitorNotFound,
  type MonitorAcl,
} from '../../auth/monitor-acl.js';
import { decimalToString } from '../../db/prisma-json.js';
import type { LiveColumns } from '../../db/live-columns.js';
import type { PrismaClient } from '../../db/prisma.js';
import { NotFoundError } from '../../errors.js';
import type { Monitor_Status } from '../../generated/prisma/client.js';
import { Decimal } from '@prisma/client-runtime-utils';
import type { DbPool } from '../../db/pool.js';
import { isValidDateText } from '../../db/prisma-zero-dates.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { processZoneClock, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Services } from '../../registry.js';

export type MonitorStatusValue = 'Unknown' | 'NotRunning' | 'Running' | 'Connected' | 'Signal';

export interface MonitorStatusResponse {
  /** @isInt @minimum 0 */
  monitor_id: number;
  /** Unknown, NotRunning, Running, Connected or Signal. */
  status: string;
  /** Decimal string, e.g. "25.00". */
  capture_fps: string;
  /** Decimal string, e.g. "5.00". */
  analysis_fps: string;
  /** Bytes per second. @isInt */
  capture_bandwidth: number;
  /** The last heartbeat, as UTC with `Z`. */
  updated_on: DateTimeWrapper | null;
}

export interface UpdateMonitorStatusRequest {
  /** Capture frame rate, a decimal with up to 2 places. @pattern ^\d{1,8}(\.\d{1,2})?$ */
  capture_fps: string;
  /** Analysis frame rate, a decimal with up to 2 places. @pattern ^\d{1,3}(\.\d{1,2})?$ */
  analysis_fps: string;
  /** Bytes per second. @isInt @minimum 0 @maximum 2147483647 */
  capture_bandwidth?: number | null;
  /** Daemon status. */
  status?: MonitorStatusValue | null;
}

/** A Monitor_Status row as the driver pool reads it (DECIMAL and TIMESTAMP as text). */
interface StatusRow {
  MonitorId: number;
  Status: string;
  CaptureFPS: string;
  AnalysisFPS: string;
  CaptureBandwidth: number;
  UpdatedOn: string | null;
}

/** The polled list's rows through the driver: the same JSON toResponse() gives for Prisma's rows. */
function fromDriver(row: StatusRow, clock: ZoneClock): MonitorStatusResponse {
  const updated = row.UpdatedOn !== null && isValidDateText(row.UpdatedOn) ? row.UpdatedOn : null;
  return {
    monitor_id: Number(row.MonitorId),
    status: row.Status,
    capture_fps: new Decimal(row.CaptureFPS).toFixed(2),
    analysis_fps: new Decimal(row.AnalysisFPS).toFixed(2),
    capture_bandwidth: Number(row.CaptureBandwidth),
    updated_on: updated === null ? null : clock.toUtcString(new Date(`${updated.replace(' ', 'T')}Z`)),
  };
}

function toResponse(row: Monitor_Status, clock: ZoneClock): MonitorStatusResponse {
  return {
    monitor_id: row.MonitorId,
    status: row.Status,
    capture_fps: decimalToString(row.CaptureFPS, 2),
    analysis_fps: decimalToString(row.AnalysisFPS, 2),
    capture_bandwidth: row.CaptureBandwidth,
    updated_on: clock.toUtcString(row.UpdatedOn),
  };
}

const STATUS_COLUMNS = ['MonitorId', 'Status', 'CaptureFPS', 'AnalysisFPS', 'CaptureBandwidth', 'UpdatedOn'];

export class MonitorStatusService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): MonitorStatusService {
    return new MonitorStatusService(s.prisma, s.acl, s.pool, s.columns, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    /** The polled list reads through the driver (a UI polls it every few seconds). */
    private readonly db: Pick<DbPool, 'execute'>,
    /** Reads UpdatedOn (1.39) as null on an older ZoneMinder's table (src/db/live-columns.ts). */
    private readonly columns?: LiveColumns,
    private readonly clock: () => Promise<ZoneClock> = processZoneClock,
  ) {}

  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<MonitorStatusResponse>> {
    const req = pageRequest(page, pageSize);
    const [scope, clock] = await Promise.all([this.acl.scope(user), this.clock()]);
    const visible = scope.visible ? [...scope.visible].sort((a, b) => a - b) : null;
    const where = !visible
      ? ''
      : visible.length
        ? `WHERE MonitorId IN (${visible.map(() => '?').join(', ')})`
        : 'WHERE 0';
    const params = visible ?? [];
    const select = this.columns
      ? await this.columns.selectList('Monitor_Status', STATUS_COLUMNS)
      : STATUS_COLUMNS.join(', ');
    return listPage(
      req,
      this.db.execute(`SELECT ${select} FROM Monitor_Status ${where} ORDER BY MonitorId LIMIT ? OFFSET ?`, [
        ...params,
        req.take,
        Math.min(req.skip, Number.MAX_SAFE_INTEGER),
      ]) as Promise<StatusRow[]>,
      (
        this.db.execute(`SELECT COUNT(*) AS n FROM Monitor_Status ${where}`, params) as Promise<
          Array<{ n: number | bigint }>
        >
      ).then(([row]) => Number(row?.n ?? 0)),
      (row) => fromDriver(row, clock),
    );
  }

  async get(user: AuthUser, monitorId: number): Promise<MonitorStatusResponse> {
    requireVisibleMonitor(await this.acl.scope(user), monitorId);
    const row = await this.prisma.monitor_Status.findUnique({ where: { MonitorId: monitorId } });
    if (row) return toResponse(row, await this.clock());
    if (!(await this.prisma.monitors.findUnique({ where: { Id: monitorId }, select: { Id: true } })))
      throw monitorNotFound(monitorId);
    throw new NotFoundError(
      `No status recorded for monitor ${monitorId}`,
      [['monitor_id', String(monitorId)]],
      'MONITOR',
    );
  }

  /** Writes the heartbeat (insert or update), stamping UpdatedOn with the database's clock. */
  async update(user: AuthUser, monitorId: number, body: UpdateMonitorStatusRequest): Promise<MonitorStatusResponse> {
    requireEditableMonitor(await this.acl.scope(user), monitorId);
    if (!(await this.prisma.monitors.findUnique({ where: { Id: monitorId }, select: { Id: true } })))
      throw monitorNotFound(monitorId);
    const status = body.status ?? null;
    const bandwidth = body.capture_bandwidth ?? null;
    // 1.36's Monitor_Status has no UpdatedOn (src/db/live-columns.ts): the heartbeat is the row itself.
    const stamped = !this.columns || !!(await this.columns.tables()).get('Monitor_Status')?.has('UpdatedOn');
    if (stamped)
      await this.prisma.$executeRaw`
        INSERT INTO Monitor_Status (MonitorId, Status, CaptureFPS, AnalysisFPS, CaptureBandwidth, UpdatedOn)
        VALUES (${monitorId}, COALESCE(${status}, 'Unknown'), ${body.capture_fps}, ${body.analysis_fps}, COALESCE(${bandwidth}, 0), NOW())
        ON DUPLICATE KEY UPDATE Status = COALESCE(${status}, Status), CaptureFPS = VALUES(CaptureFPS),
          AnalysisFPS = VALUES(AnalysisFPS), CaptureBandwidth = COALESCE(${bandwidth}, CaptureBandwidth), UpdatedOn = NOW()`;
    else
      await this.prisma.$executeRaw`
        INSERT INTO Monitor_Status (MonitorId, Status, CaptureFPS, AnalysisFPS, CaptureBandwidth)
        VALUES (${monitorId}, COALESCE(${status}, 'Unknown'), ${body.capture_fps}, ${body.analysis_fps}, COALESCE(${bandwidth}, 0))
        ON DUPLICATE KEY UPDATE Status = COALESCE(${status}, Status), CaptureFPS = VALUES(CaptureFPS),
          AnalysisFPS = VALUES(AnalysisFPS), CaptureBandwidth = COALESCE(${bandwidth}, CaptureBandwidth)`;
    return this.get(user, monitorId);
  }
}
