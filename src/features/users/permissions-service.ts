// Row-level permission rows: Monitors_Permissions and Groups_Permissions (System area only, so a
// Groups- or Monitors-Edit user cannot raise their own rights). Every write drops the cached
// scopes so the change applies at once rather than after the ACL cache's few seconds.
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import { AclDbService } from '../db-service.js';

/** A row's level: Inherit defers to group, role and area rules; None hides. */
export type RowPermissionLevel = 'Inherit' | 'None' | 'View' | 'Edit';

export interface MonitorPermissionResponse {
  /** @isInt @minimum 0 */
  id: number;
  /** @isInt @minimum 0 */
  monitor_id: number;
  /** @isInt @minimum 0 */
  user_id: number;
  /** Inherit, None, View or Edit. */
  permission: string;
}

export interface CreateMonitorPermissionRequest {
  /** The monitor. @isInt @minimum 0 */
  monitor_id: number;
  /** The user. @isInt @minimum 0 */
  user_id: number;
  /** Inherit defers to group, role and area rules; None hides the monitor. */
  permission: RowPermissionLevel;
}

export interface UpdateMonitorPermissionRequest {
  /** New level; omitted or null keeps it. */
  permission?: RowPermissionLevel | null;
}

export interface GroupPermissionResponse {
  /** @isInt @minimum 0 */
  id: number;
  /** @isInt @minimum 0 */
  group_id: number;
  /** @isInt @minimum 0 */
  user_id: number;
  /** Inherit, None, View or Edit. */
  permission: string;
}

export interface CreateGroupPermissionRequest {
  /** The group (the row also covers its subgroups' monitors). @isInt @minimum 0 */
  group_id: number;
  /** The user. @isInt @minimum 0 */
  user_id: number;
  /** Inherit, None, View or Edit. */
  permission: RowPermissionLevel;
}

export interface UpdateGroupPermissionRequest {
  /** New level; omitted or null keeps it. */
  permission?: RowPermissionLevel | null;
}

interface Row {
  Id: number;
  UserId: number;
  Permission: string;
}

export class PermissionsService extends AclDbService {
  private async checkRefs(userId: number, target: ['monitor_id' | 'group_id', number]): Promise<void> {
    const [field, id] = target;
    const [user, row] = await Promise.all([
      this.prisma.users.findUnique({ where: { Id: userId }, select: { Id: true } }),
      field === 'monitor_id'
        ? this.prisma.monitors.findUnique({ where: { Id: id }, select: { Id: true } })
        : this.prisma.groups.findUnique({ where: { Id: id }, select: { Id: true } }),
    ]);
    const problems: Array<[string, string]> = [];
    if (!user) problems.push(['user_id', `unknown user ${userId}`]);
    if (!row) problems.push([field, `unknown ${field === 'monitor_id' ? 'monitor' : 'group'} ${id}`]);
    if (problems.length) throw new InvalidInputError('Invalid input', problems);
  }

  private changed(row: Row): void {
    this.acl.invalidate(row.UserId);
  }

  // Monitors_Permissions -------------------------------------------------------------------

  async listMonitor(page?: number, pageSize?: number): Promise<Page<MonitorPermissionResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.monitors_Permissions.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.monitors_Permissions.count(),
      monitorRow,
    );
  }

  async getMonitor(id: number): Promise<MonitorPermissionResponse> {
    const row = await this.prisma.monitors_Permissions.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Monitor permission', id);
    return monitorRow(row);
  }

  async createMonitor(body: CreateMonitorPermissionRequest): Promise<MonitorPermissionResponse> {
    await this.checkRefs(body.user_id, ['monitor_id', body.monitor_id]);
    // A second row for the same (monitor, user) is a unique-index 409, mapped centrally.
    const row = await this.prisma.monitors_Permissions.create({
      data: { MonitorId: body.monitor_id, UserId: body.user_id, Permission: body.permission },
    });
    this.changed(row);
    return monitorRow(row);
  }

  async updateMonitor(id: number, body: UpdateMonitorPermissionRequest): Promise<MonitorPermissionResponse> {
    await this.getMonitor(id);
    const row = await this.prisma.monitors_Permissions.update({
      where: { Id: id },
      data: { ...(body.permission != null && { Permission: body.permission }) },
    });
    this.changed(row);
    return monitorRow(row);
  }

  async removeMonitor(id: number): Promise<void> {
    await this.getMonitor(id);
    this.changed(await this.prisma.monitors_Permissions.delete({ where: { Id: id } }));
  }

  // Groups_Permissions ---------------------------------------------------------------------

  async listGroup(page?: number, pageSize?: number): Promise<Page<GroupPermissionResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.groups_Permissions.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.groups_Permissions.count(),
      groupRow,
    );
  }

  async getGroup(id: number): Promise<GroupPermissionResponse> {
    const row = await this.prisma.groups_Permissions.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Group permission', id);
    return groupRow(row);
  }

  async createGroup(body: CreateGroupPermissionRequest): Promise<GroupPermissionResponse> {
    await this.checkRefs(body.user_id, ['group_id', body.group_id]);
    const row = await this.prisma.groups_Permissions.create({
      data: { GroupId: body.group_id, UserId: body.user_id, Permission: body.permission },
    });
    this.changed(row);
    return groupRow(row);
  }

  async updateGroup(id: number, body: UpdateGroupPermissionRequest): Promise<GroupPermissionResponse> {
    await this.getGroup(id);
    const row = await this.prisma.groups_Permissions.update({
      where: { Id: id },
      data: { ...(body.permission != null && { Permission: body.permission }) },
    });
    this.changed(row);
    return groupRow(row);
  }

  async removeGroup(id: number): Promise<void> {
    await this.getGroup(id);
    this.changed(await this.prisma.groups_Permissions.delete({ where: { Id: id } }));
  }
}

function monitorRow(row: Row & { MonitorId: number }): MonitorPermissionResponse {
  return { id: row.Id, monitor_id: row.MonitorId, user_id: row.UserId, permission: row.Permission };
}

function groupRow(row: Row & { GroupId: number }): GroupPermissionResponse {
  return { id: row.Id, group_id: row.GroupId, user_id: row.UserId, permission: row.Permission };
}
