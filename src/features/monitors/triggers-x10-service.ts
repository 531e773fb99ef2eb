// X10 triggers (the TriggersX10 table): per-monitor X10 activation and alarm codes that zmx10.pl
// acts on, keyed by the monitor id. The monitor row ACL applies: triggers of hidden monitors are
// filtered from lists and read as 404 by id (the same as a missing trigger); writing needs the
// monitor to be editable (403 when only visible); creating needs an existing, visible monitor
// (400) without a trigger yet (409). zmx10.pl only acts when the monitor's Triggers set also
// holds X10; that column belongs to the monitor and is left to PATCH /monitors/{id}.
import type { AuthUser } from '../../auth/auth-service.js';
import { canSee, requireEditableMonitor, type MonitorScope } from '../../auth/monitor-acl.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, TriggersX10 } from '../../generated/prisma/client.js';
import { AclDbService } from '../db-service.js';

export interface TriggerX10Response {
  /** The monitor (one trigger per monitor). @isInt @minimum 0 */
  monitor_id: number;
  /** X10 code that activates the monitor. */
  activation?: string | null;
  /** X10 code that raises an alarm on the monitor. */
  alarm_input?: string | null;
  /** X10 code sent when the monitor alarms. */
  alarm_output?: string | null;
}

interface TriggerX10Fields {
  /** X10 code that activates the monitor; null clears it. @maxLength 32 */
  activation?: string | null;
  /** X10 code that raises an alarm on the monitor; null clears it. @maxLength 32 */
  alarm_input?: string | null;
  /** X10 code sent when the monitor alarms; null clears it. @maxLength 32 */
  alarm_output?: string | null;
}

export interface CreateTriggerX10Request extends TriggerX10Fields {
  /** An existing monitor the caller may edit, without a trigger yet. @isInt @minimum 0 @maximum 2147483647 */
  monitor_id: number;
}

export interface UpdateTriggerX10Request extends TriggerX10Fields {}

const toResponse = (row: TriggersX10): TriggerX10Response => ({
  monitor_id: row.MonitorId,
  activation: row.Activation,
  alarm_input: row.AlarmInput,
  alarm_output: row.AlarmOutput,
});

const toData = (body: TriggerX10Fields) => ({
  Activation: body.activation,
  AlarmInput: body.alarm_input,
  AlarmOutput: body.alarm_output,
});

export class TriggersX10Service extends AclDbService {
  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<TriggerX10Response>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.scope(user);
    const where: Prisma.TriggersX10WhereInput = scope.visible ? { MonitorId: { in: [...scope.visible] } } : {};
    return listPage(
      req,
      this.prisma.triggersX10.findMany({ where, orderBy: { MonitorId: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.triggersX10.count({ where }),
      toResponse,
    );
  }

  /** The trigger, or 404 when it is missing or its monitor is hidden from the caller. */
  private async row(scope: MonitorScope, monitorId: number): Promise<TriggersX10> {
    const row = canSee(scope, monitorId)
      ? await this.prisma.triggersX10.findUnique({ where: { MonitorId: monitorId } })
      : null;
    if (!row)
      throw new NotFoundError(
        `No X10 trigger for monitor ${monitorId}`,
        [['monitor_id', String(monitorId)]],
        'MESSAGE',
      );
    return row;
  }

  async get(user: AuthUser, monitorId: number): Promise<TriggerX10Response> {
    return toResponse(await this.row(await this.acl.scope(user), monitorId));
  }

  async create(user: AuthUser, body: CreateTriggerX10Request): Promise<TriggerX10Response> {
    const scope = await this.acl.scope(user);
    const monitor = canSee(scope, body.monitor_id)
      ? await this.prisma.monitors.findUnique({ where: { Id: body.monitor_id }, select: { Id: true } })
      : null;
    if (!monitor)
      throw new InvalidInputError(`Monitor ${body.monitor_id} does not exist`, [
        ['monitor_id', `no monitor with id ${body.monitor_id}`],
      ]);
    requireEditableMonitor(scope, body.monitor_id);
    return toResponse(await this.prisma.triggersX10.create({ data: { MonitorId: body.monitor_id, ...toData(body) } }));
  }

  async update(user: AuthUser, monitorId: number, body: UpdateTriggerX10Request): Promise<TriggerX10Response> {
    const scope = await this.acl.scope(user);
    await this.row(scope, monitorId);
    requireEditableMonitor(scope, monitorId);
    return toResponse(await this.prisma.triggersX10.update({ where: { MonitorId: monitorId }, data: toData(body) }));
  }

  async remove(user: AuthUser, monitorId: number): Promise<void> {
    const scope = await this.acl.scope(user);
    await this.row(scope, monitorId);
    requireEditableMonitor(scope, monitorId);
    await this.prisma.triggersX10.delete({ where: { MonitorId: monitorId } });
  }
}
