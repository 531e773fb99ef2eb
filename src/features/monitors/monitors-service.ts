// Monitors: the Monitors table, filtered by the row-level ACL. Field mapping in monitor-fields.ts.
//
// Decisions:
// - Enums are emitted as stored (ROTATE_90, cURL, KeyFrames+Ondemand, …); on input the stored
//   spelling and the older variant (Rotate90, Curl, KeyFramesOndemand, Mp4, …) are accepted.
// - Function vs Capturing/Analysing/Recording: when any of the three modes is written they are
//   authoritative and Function is re-derived from them, so 1.36-era tools reading Function see
//   the same behaviour; when only Function is written, the modes are derived from it as
//   zm_update-1.37.12 does. A create with neither gets the column defaults and the matching
//   Function (Mocord), never the inconsistent pair the bare defaults would give.
// - Create needs `name` only; every other column takes its database default. The reference
//   marks ~100 fields required, which the clients send anyway; requiring fewer is compatible.
// - Creating a monitor needs an unrestricted row scope (a restricted user could not see it).
// - Alarm control writes TriggerData in the monitor's shared memory (docs/zoneminder/shared-memory.md), as zmu -a/-c/-n
//   do: on = force (score default 100, cause default "API", the client's values), off = suppress,
//   cancel = end; status reads it. All four answer the Monitor, and 503 when zmc is not capturing
//   (no file, valid 0, Capturing None, stale heartbeat) — a 2xx to `status` is what makes the
//   browser client offer Force Alarm. Start/stop needs daemon supervision: validated, then 503.
import type { AuthUser } from '../../auth/auth-service.js';
import {
  isUnrestricted,
  monitorNotFound,
  requireEditableMonitor,
  requireVisibleMonitor,
  type MonitorAcl,
} from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError, PermissionDeniedError, ServiceUnavailableError, notFound } from '../../errors.js';
import type { Monitors, Prisma } from '../../generated/prisma/client.js';
import { pageOf, pageRequest, type Page, type PageRequest, listPage } from '../../api/pagination.js';
import { controlAlarm } from '../../zm/alarm-control.js';
import { notCapturing } from '../../zm/live-images.js';
import { MonitorRows } from './monitor-rows.js';
import { MAX_SNAPSHOT_PAGES, ReadCaches } from '../../infra/read-cache/read-caches.js';
import { withJsonText } from '../../infra/read-cache/json-text.js';
import { Daemons } from '../daemons/daemon-manager.js';
import { DaemonsService } from '../daemons/daemons-service.js';
import {
  MONITOR_FIELDS,
  enumFromPrisma,
  enumToPrisma,
  functionForModes,
  modesForFunction,
  type FunctionValue,
  type Modes,
} from './monitor-fields.js';
import type { Services } from '../../registry.js';
import type { MonitorResponse, MonitorSettings } from '../../generated/dto/monitors.js';
import { jsonToColumns, rowToJson } from '../field-table.js';

// MonitorResponse and MonitorSettings are generated from the field table (monitor-fields.ts).
export type { MonitorResponse, MonitorSettings };

export interface CreateMonitorRequest extends MonitorSettings {
  /** Display name. @minLength 1 @maxLength 64 */
  name: string;
}

export interface UpdateMonitorRequest extends MonitorSettings {
  /** Display name. @minLength 1 @maxLength 64 */
  name?: string | null;
}

export type AlarmAction = 'on' | 'off' | 'cancel' | 'status';

export interface AlarmControlRequest {
  /** on = force an alarm, off/cancel = end it, status = read the alarm state. */
  action: AlarmAction;
  /** Event cause for a forced alarm. @maxLength 31 */
  cause?: string | null;
  /** Score of a forced alarm. @isInt @minimum 0 @maximum 65535 */
  score?: number | null;
  /** Event text for a forced alarm. @maxLength 255 */
  text?: string | null;
}

export type MonitorStateAction = 'start' | 'stop' | 'restart';

/** Takeover mode's control of a monitor's capture daemon, or undefined in passive mode. */
function daemonControl(s: Services): MonitorDaemonControl | undefined {
  return s.get(Daemons) ? s.get(DaemonsService) : undefined;
}

/** What PATCH /monitors/{id}/state needs from the daemon supervisor. */
export interface MonitorDaemonControl {
  monitorAction(monitor: { id: number; type: string; device: string }, action: MonitorStateAction): void;
}

/** `PATCH /monitors/{id}/state`: `{state}` (or `{action}`) = start | stop | restart. */
export interface UpdateMonitorStateRequest {
  /** The daemon action. */
  state?: MonitorStateAction | null;
  /** Alias of `state`. */
  action?: MonitorStateAction | null;
}

// ---------------------------------------------------------------------------------------------

const DEFAULT_MODES: Modes = { Capturing: 'Always', Analysing: 'Always', Recording: 'Always' };

function toResponse(row: Monitors): MonitorResponse {
  return rowToJson(MONITOR_FIELDS, row, {
    enumOut: (f, v) => enumFromPrisma(f.column, v),
  }) as unknown as MonitorResponse;
}

/** Request body → column values. null clears a nullable column and is ignored otherwise. */
function toData(body: object): Record<string, unknown> {
  return jsonToColumns(MONITOR_FIELDS, body, (f, v) => enumToPrisma(f.column, v));
}

/** Keeps Function and Capturing/Analysing/Recording consistent (see the header). */
function reconcileModes(data: Record<string, unknown>, current: Modes | null): void {
  const base = current ?? DEFAULT_MODES;
  const given = (['Capturing', 'Analysing', 'Recording'] as const).filter((k) => data[k] !== undefined);
  if (given.length > 0) {
    data.Function = functionForModes({ ...base, ...(data as Partial<Modes>) });
  } else if (data.Function !== undefined) {
    Object.assign(data, modesForFunction(data.Function as FunctionValue, base));
  } else if (current === null) {
    data.Function = functionForModes(base);
  }
}

export class MonitorsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): MonitorsService {
    return new MonitorsService(
      s.prisma,
      s.acl,
      s.config.zoneminder.path_map,
      new MonitorRows(s.pool, s.columns),
      daemonControl(s),
      s.get(ReadCaches),
    );
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    /** ZM_PATH_MAP, where zm.mmap.<id> lives; alarm control needs it. */
    private readonly mapDir?: string,
    /** The driver read path for list/get (monitor-rows.ts); without it they go through Prisma. */
    private readonly reader?: MonitorRows,
    /** Takeover mode's control of the monitor's capture daemon; absent in passive mode (503). */
    private readonly daemons?: MonitorDaemonControl,
    private readonly caches: ReadCaches = new ReadCaches(),
  ) {}

  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<MonitorResponse>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.scope(user);
    if (this.reader) return this.cachedPage(this.reader, scope.visible, req);
    const where: Prisma.MonitorsWhereInput = scope.visible ? { Id: { in: [...scope.visible] } } : {};
    return listPage(
      req,
      this.prisma.monitors.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.monitors.count({ where }),
      toResponse,
    );
  }

  /**
   * The list from the shared snapshot of every monitor (at most MONITORS_MAX_AGE_MS old, emptied
   * by API writes), filtered by this caller's scope on every request; a page is serialized once
   * per snapshot and scope (the list is ~3 KB of JSON per monitor).
   */
  private async cachedPage(
    reader: MonitorRows,
    visible: ReadonlySet<number> | null,
    req: PageRequest,
  ): Promise<Page<MonitorResponse>> {
    const snapshot = await this.caches.monitors.get('all', async () => ({
      rows: (await reader.all()).map(toResponse),
      pages: new Map<string, object>(),
    }));
    const key = `${visible === null ? '*' : [...visible].sort((a, b) => a - b).join(',')}|${req.page}|${req.pageSize}`;
    let page = snapshot.pages.get(key) as Page<MonitorResponse> | undefined;
    if (!page) {
      const rows = snapshot.rows as MonitorResponse[];
      const mine = visible === null ? rows : rows.filter((r) => visible.has(r.id));
      page = withJsonText(pageOf(mine.slice(req.skip, req.skip + req.take), mine.length, req));
      if (snapshot.pages.size >= MAX_SNAPSHOT_PAGES) snapshot.pages.clear();
      snapshot.pages.set(key, page);
    }
    return page;
  }

  /** `missingAs`: the reference answers a missing monitor on update and delete with FILE_NOT_FOUND_ERROR. */
  private async row(
    user: AuthUser,
    id: number,
    edit: boolean,
    missingAs: 'MONITOR' | 'FILE' = 'MONITOR',
  ): Promise<Monitors> {
    const scope = await this.acl.scope(user);
    if (edit) requireEditableMonitor(scope, id);
    else requireVisibleMonitor(scope, id);
    const row = await this.prisma.monitors.findUnique({ where: { Id: id } });
    if (!row) throw missingAs === 'FILE' ? notFound('Monitor', id, 'FILE') : monitorNotFound(id);
    return row;
  }

  async get(user: AuthUser, id: number): Promise<MonitorResponse> {
    if (!this.reader) return toResponse(await this.row(user, id, false));
    requireVisibleMonitor(await this.acl.scope(user), id);
    const row = await this.reader.byId(id);
    if (!row) throw monitorNotFound(id);
    return toResponse(row);
  }

  /** Unknown lookups are a 400 naming the field, not a foreign-key 409. */
  private async checkReferences(data: Record<string, unknown>): Promise<void> {
    const problems: Array<[string, string]> = [];
    if (
      typeof data.ManufacturerId === 'number' &&
      !(await this.prisma.manufacturers.findUnique({ where: { Id: data.ManufacturerId } }))
    ) {
      problems.push(['manufacturer_id', 'unknown manufacturer']);
    }
    if (typeof data.ModelId === 'number' && !(await this.prisma.models.findUnique({ where: { Id: data.ModelId } }))) {
      problems.push(['model_id', 'unknown model']);
    }
    if (problems.length) throw new InvalidInputError('Invalid input', problems);
  }

  async create(user: AuthUser, body: CreateMonitorRequest): Promise<MonitorResponse> {
    if (!isUnrestricted(await this.acl.scope(user))) {
      throw new PermissionDeniedError('Creating a monitor needs access to every monitor (no row-level restrictions)');
    }
    const data = toData(body as unknown as Record<string, unknown>);
    reconcileModes(data, null);
    await this.checkReferences(data);
    const row = await this.prisma.monitors.create({ data: data as Prisma.MonitorsUncheckedCreateInput });
    this.acl.invalidate(); // restricted users' visible sets are computed over the monitor list
    return toResponse(row);
  }

  async update(user: AuthUser, id: number, body: UpdateMonitorRequest): Promise<MonitorResponse> {
    const current = await this.row(user, id, true, 'FILE');
    const data = toData(body as unknown as Record<string, unknown>);
    reconcileModes(data, { Capturing: current.Capturing, Analysing: current.Analysing, Recording: current.Recording });
    await this.checkReferences(data);
    const row = await this.prisma.monitors.update({
      where: { Id: id },
      data: data as Prisma.MonitorsUncheckedUpdateInput,
    });
    return toResponse(row);
  }

  /** Zones, group memberships and permission rows go by foreign-key cascade; events stay. */
  async remove(user: AuthUser, id: number): Promise<void> {
    await this.row(user, id, true, 'FILE');
    await this.prisma.$transaction([
      this.prisma.monitor_Status.deleteMany({ where: { MonitorId: id } }),
      this.prisma.monitors.delete({ where: { Id: id } }),
    ]);
    this.acl.invalidate();
  }

  async alarm(user: AuthUser, id: number, body: AlarmControlRequest): Promise<MonitorResponse> {
    const row = await this.row(user, id, body.action !== 'status');
    if (!this.mapDir) throw notCapturing(id, 'shared memory location not configured');
    controlAlarm(this.mapDir, id, body);
    return toResponse(row);
  }

  async changeState(user: AuthUser, id: number, body: UpdateMonitorStateRequest): Promise<MonitorResponse> {
    const action = body.state ?? body.action;
    if (!action) throw new InvalidInputError('Invalid input', [['state', 'one of start, stop, restart is required']]);
    const row = await this.row(user, id, true);
    if (!this.daemons) {
      throw new ServiceUnavailableError(
        'Daemon manager not available: starting and stopping monitors needs takeover mode',
        [
          ['monitor_id', String(id)],
          ['state', action],
        ],
      );
    }
    // Throws with the reason when the daemon cannot be started.
    this.daemons.monitorAction({ id, type: String(row.Type), device: row.Device ?? '' }, action);
    return toResponse(row);
  }
}
