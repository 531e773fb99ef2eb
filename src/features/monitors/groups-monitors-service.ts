// Group membership (Groups_Monitors). A row is visible when both its group and its monitor are;
// changing membership needs an editable group and a visible monitor. Unknown or hidden
// references in a body are a 400 naming the field (a hidden one is never distinguishable).
import type { AuthUser } from '../../auth/auth-service.js';
import { canSee } from '../../auth/monitor-acl.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.js';
import type { Groups_Monitors, Prisma } from '../../generated/prisma/client.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import { requireEditableGroup } from './groups-service.js';
import { AclDbService } from '../db-service.js';

export interface GroupMonitorResponse {
  /** @isInt @minimum 0 */
  id: number;
  /** @isInt @minimum 0 */
  group_id: number;
  /** @isInt @minimum 0 */
  monitor_id: number;
}

export interface CreateGroupMonitorRequest {
  /** The group. @isInt @minimum 0 */
  group_id: number;
  /** The monitor to add to it. @isInt @minimum 0 */
  monitor_id: number;
}

const toResponse = (row: Groups_Monitors): GroupMonitorResponse => ({
  id: row.Id,
  group_id: row.GroupId,
  monitor_id: row.MonitorId,
});
const notFound = (id: number) => new NotFoundError(`Group membership ${id} not found`, [['id', String(id)]], 'FILE');

export class GroupsMonitorsService extends AclDbService {
  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<GroupMonitorResponse>> {
    const req = pageRequest(page, pageSize);
    const [monitors, groups] = await Promise.all([this.acl.scope(user), this.acl.groupScope(user)]);
    const where: Prisma.Groups_MonitorsWhereInput = {
      ...(monitors.visible && { MonitorId: { in: [...monitors.visible] } }),
      ...(groups.visible && { GroupId: { in: [...groups.visible] } }),
    };
    return listPage(
      req,
      this.prisma.groups_Monitors.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.groups_Monitors.count({ where }),
      toResponse,
    );
  }

  private async row(user: AuthUser, id: number): Promise<Groups_Monitors> {
    const row = await this.prisma.groups_Monitors.findUnique({ where: { Id: id } });
    const [monitors, groups] = await Promise.all([this.acl.scope(user), this.acl.groupScope(user)]);
    if (!row || !canSee(monitors, row.MonitorId) || !canSee(groups, row.GroupId)) throw notFound(id);
    return row;
  }

  async get(user: AuthUser, id: number): Promise<GroupMonitorResponse> {
    return toResponse(await this.row(user, id));
  }

  async create(user: AuthUser, body: CreateGroupMonitorRequest): Promise<GroupMonitorResponse> {
    const [monitors, groups] = await Promise.all([this.acl.scope(user), this.acl.groupScope(user)]);
    const [group, monitor] = await Promise.all([
      this.prisma.groups.findUnique({ where: { Id: body.group_id }, select: { Id: true } }),
      this.prisma.monitors.findUnique({ where: { Id: body.monitor_id }, select: { Id: true } }),
    ]);
    const problems: Array<[string, string]> = [];
    if (!group || !canSee(groups, body.group_id)) problems.push(['group_id', `unknown group ${body.group_id}`]);
    if (!monitor || !canSee(monitors, body.monitor_id))
      problems.push(['monitor_id', `unknown monitor ${body.monitor_id}`]);
    if (problems.length) throw new InvalidInputError('Invalid input', problems);
    requireEditableGroup(groups, body.group_id);
    // Groups_Monitors has no unique index: refuse duplicates here rather than store them twice.
    if (
      await this.prisma.groups_Monitors.findFirst({ where: { GroupId: body.group_id, MonitorId: body.monitor_id } })
    ) {
      throw new ConflictError(`Monitor ${body.monitor_id} is already in group ${body.group_id}`, [
        ['group_id', String(body.group_id)],
        ['monitor_id', String(body.monitor_id)],
      ]);
    }
    const row = await this.prisma.groups_Monitors.create({
      data: { GroupId: body.group_id, MonitorId: body.monitor_id },
    });
    this.acl.invalidate(); // group rows cover members: restricted scopes change
    return toResponse(row);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    const row = await this.row(user, id);
    requireEditableGroup(await this.acl.groupScope(user), row.GroupId);
    await this.prisma.groups_Monitors.delete({ where: { Id: id } });
    this.acl.invalidate();
  }
}
