// Per-zone alarm statistics of event frames (the Stats table), written by zmc while it records
// and removed with their events. Each row belongs to a monitor, so the monitor row ACL applies:
// rows of hidden monitors are filtered from lists and read as 404 by id; writing needs the
// monitor to be editable (403 when only visible). A row written here must describe something
// real, as zmc's do: the monitor must exist and be visible, the zone must be one of its zones and
// the event one of its events (400 naming the field otherwise).
import type { AuthUser } from '../../auth/auth-service.js';
import { canSee, requireEditableMonitor, type MonitorScope } from '../../auth/monitor-acl.js';
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Stats } from '../../generated/prisma/client.js';
import type { CreateStatRequest, StatResponse, UpdateStatRequest } from '../../generated/dto/stats.js';
import { jsonToColumns, rowToJson } from '../field-table.js';
import { STAT_FIELDS } from './stat-fields.js';
import { AclDbService } from '../db-service.js';

// StatResponse, CreateStatRequest and UpdateStatRequest are generated from stat-fields.ts.
export type { CreateStatRequest, StatResponse, UpdateStatRequest };

function toResponse(row: Stats): StatResponse {
  return rowToJson(STAT_FIELDS, row) as unknown as StatResponse;
}

/** The columns a body sets (null and absent fields are left alone: no column is nullable). */
function toData(body: CreateStatRequest | UpdateStatRequest): Prisma.StatsUncheckedUpdateInput {
  return jsonToColumns(STAT_FIELDS, body);
}

export class StatsService extends AclDbService {
  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<StatResponse>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.scope(user);
    const where: Prisma.StatsWhereInput = scope.visible ? { MonitorId: { in: [...scope.visible] } } : {};
    return listPage(
      req,
      this.prisma.stats.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.stats.count({ where }),
      toResponse,
    );
  }

  /** The row, or 404 when it is missing or its monitor is hidden from the caller. */
  private async row(scope: MonitorScope, id: number): Promise<Stats> {
    const row = await this.prisma.stats.findUnique({ where: { Id: id } });
    if (!row || !canSee(scope, row.MonitorId)) throw notFound('Stat', id, 'MESSAGE');
    return row;
  }

  async get(user: AuthUser, id: number): Promise<StatResponse> {
    return toResponse(await this.row(await this.acl.scope(user), id));
  }

  /** Monitor visible and existing (400), editable (403); zone and event of that monitor (400). */
  private async checkRefs(scope: MonitorScope, monitorId: number, zoneId: number, eventId: number): Promise<void> {
    const monitor = canSee(scope, monitorId)
      ? await this.prisma.monitors.findUnique({ where: { Id: monitorId }, select: { Id: true } })
      : null;
    if (!monitor)
      throw new InvalidInputError(`Monitor ${monitorId} does not exist`, [
        ['monitor_id', `no monitor with id ${monitorId}`],
      ]);
    requireEditableMonitor(scope, monitorId);
    const [zone, event] = await Promise.all([
      this.prisma.zones.findFirst({ where: { Id: zoneId, MonitorId: monitorId }, select: { Id: true } }),
      this.prisma.events.findFirst({ where: { Id: BigInt(eventId), MonitorId: monitorId }, select: { Id: true } }),
    ]);
    if (!zone) throw new InvalidInputError('Invalid input', [['zone_id', `no zone ${zoneId} on monitor ${monitorId}`]]);
    if (!event)
      throw new InvalidInputError('Invalid input', [['event_id', `no event ${eventId} of monitor ${monitorId}`]]);
  }

  async create(user: AuthUser, body: CreateStatRequest): Promise<StatResponse> {
    await this.checkRefs(await this.acl.scope(user), body.monitor_id, body.zone_id, body.event_id);
    return toResponse(await this.prisma.stats.create({ data: toData(body) as Prisma.StatsUncheckedCreateInput }));
  }

  async update(user: AuthUser, id: number, body: UpdateStatRequest): Promise<StatResponse> {
    const scope = await this.acl.scope(user);
    const current = await this.row(scope, id);
    requireEditableMonitor(scope, current.MonitorId);
    const monitorId = body.monitor_id ?? current.MonitorId;
    const zoneId = body.zone_id ?? current.ZoneId;
    const eventId = body.event_id ?? Number(current.EventId);
    if (body.monitor_id != null || body.zone_id != null || body.event_id != null)
      await this.checkRefs(scope, monitorId, zoneId, eventId);
    return toResponse(await this.prisma.stats.update({ where: { Id: id }, data: toData(body) }));
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    const scope = await this.acl.scope(user);
    const current = await this.row(scope, id);
    requireEditableMonitor(scope, current.MonitorId);
    await this.prisma.stats.delete({ where: { Id: id } });
  }
}
