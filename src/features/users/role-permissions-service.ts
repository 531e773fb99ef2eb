// Row-level rules of roles: Role_Monitors_Permissions and Role_Groups_Permissions, the role
// counterparts of Monitors_Permissions / Groups_Permissions (steps 3 and 4 of ZoneMinder's
// visibility order, src/auth/monitor-acl.ts). System-gated like the user rows. A role is shared,
// so every write drops all cached scopes, not one user's.
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { RowPermissionLevel } from './permissions-service.js';
import { AclDbService } from '../db-service.js';

export interface RoleMonitorPermissionResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /**
   * @isInt
   * @minimum 0
   */
  role_id: number;
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  permission: RowPermissionLevel;
}

export interface CreateRoleMonitorPermissionRequest {
  /**
   * The role.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  role_id: number;
  /**
   * The monitor.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  monitor_id: number;
  /** Inherit defers to the role's group rows and areas; None hides the monitor. */
  permission: RowPermissionLevel;
}

export interface UpdateRoleMonitorPermissionRequest {
  /** New level; omitted or null keeps it. */
  permission?: RowPermissionLevel | null;
}

export interface RoleGroupPermissionResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /**
   * @isInt
   * @minimum 0
   */
  role_id: number;
  /**
   * @isInt
   * @minimum 0
   */
  group_id: number;
  permission: RowPermissionLevel;
}

export interface CreateRoleGroupPermissionRequest {
  /**
   * The role.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  role_id: number;
  /**
   * The group (the row also covers its subgroups' monitors).
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  group_id: number;
  /** Inherit, None, View or Edit. */
  permission: RowPermissionLevel;
}

export interface UpdateRoleGroupPermissionRequest {
  /** New level; omitted or null keeps it. */
  permission?: RowPermissionLevel | null;
}

interface Row {
  Id: number;
  RoleId: number;
  Permission: string;
}

const monitorRow = (r: Row & { MonitorId: number }): RoleMonitorPermissionResponse => ({
  id: r.Id,
  role_id: r.RoleId,
  monitor_id: r.MonitorId,
  permission: r.Permission as RowPermissionLevel,
});

const groupRow = (r: Row & { GroupId: number }): RoleGroupPermissionResponse => ({
  id: r.Id,
  role_id: r.RoleId,
  group_id: r.GroupId,
  permission: r.Permission as RowPermissionLevel,
});

export class RolePermissionsService extends AclDbService {
  /** Unknown role and target are 400 naming the fields (not a foreign-key 409). */
  private async checkRefs(roleId: number, target: ['monitor_id' | 'group_id', number]): Promise<void> {
    const [field, id] = target;
    const [role, row] = await Promise.all([
      this.prisma.user_Roles.findUnique({ where: { Id: roleId }, select: { Id: true } }),
      field === 'monitor_id'
        ? this.prisma.monitors.findUnique({ where: { Id: id }, select: { Id: true } })
        : this.prisma.groups.findUnique({ where: { Id: id }, select: { Id: true } }),
    ]);
    const problems: Array<[string, string]> = [];
    if (!role) problems.push(['role_id', `unknown role ${roleId}`]);
    if (!row) problems.push([field, `unknown ${field === 'monitor_id' ? 'monitor' : 'group'} ${id}`]);
    if (problems.length) throw new InvalidInputError('Invalid input', problems);
  }

  // Role_Monitors_Permissions ----------------------------------------------------------------

  async listMonitor(
    roleId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<Page<RoleMonitorPermissionResponse>> {
    const req = pageRequest(page, pageSize);
    const where = roleId === undefined ? {} : { RoleId: roleId };
    return listPage(
      req,
      this.prisma.role_Monitors_Permissions.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.role_Monitors_Permissions.count({ where }),
      monitorRow,
    );
  }

  async getMonitor(id: number): Promise<RoleMonitorPermissionResponse> {
    const row = await this.prisma.role_Monitors_Permissions.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Role monitor permission', id);
    return monitorRow(row);
  }

  /** A second row for the same (role, monitor) is a unique-index 409, mapped centrally. */
  async createMonitor(body: CreateRoleMonitorPermissionRequest): Promise<RoleMonitorPermissionResponse> {
    await this.checkRefs(body.role_id, ['monitor_id', body.monitor_id]);
    const row = await this.prisma.role_Monitors_Permissions.create({
      data: { RoleId: body.role_id, MonitorId: body.monitor_id, Permission: body.permission },
    });
    this.acl.invalidate();
    return monitorRow(row);
  }

  async updateMonitor(id: number, body: UpdateRoleMonitorPermissionRequest): Promise<RoleMonitorPermissionResponse> {
    await this.getMonitor(id);
    const row = await this.prisma.role_Monitors_Permissions.update({
      where: { Id: id },
      data: { ...(body.permission != null && { Permission: body.permission }) },
    });
    this.acl.invalidate();
    return monitorRow(row);
  }

  async removeMonitor(id: number): Promise<void> {
    await this.getMonitor(id);
    await this.prisma.role_Monitors_Permissions.delete({ where: { Id: id } });
    this.acl.invalidate();
  }

  // Role_Groups_Permissions ------------------------------------------------------------------

  async listGroup(
    roleId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<Page<RoleGroupPermissionResponse>> {
    const req = pageRequest(page, pageSize);
    const where = roleId === undefined ? {} : { RoleId: roleId };
    return listPage(
      req,
      this.prisma.role_Groups_Permissions.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.role_Groups_Permissions.count({ where }),
      groupRow,
    );
  }

  async getGroup(id: number): Promise<RoleGroupPermissionResponse> {
    const row = await this.prisma.role_Groups_Permissions.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Role group permission', id);
    return groupRow(row);
  }

  async createGroup(body: CreateRoleGroupPermissionRequest): Promise<RoleGroupPermissionResponse> {
    await this.checkRefs(body.role_id, ['group_id', body.group_id]);
    const row = await this.prisma.role_Groups_Permissions.create({
      data: { RoleId: body.role_id, GroupId: body.group_id, Permission: body.permission },
    });
    this.acl.invalidate();
    return groupRow(row);
  }

  async updateGroup(id: number, body: UpdateRoleGroupPermissionRequest): Promise<RoleGroupPermissionResponse> {
    await this.getGroup(id);
    const row = await this.prisma.role_Groups_Permissions.update({
      where: { Id: id },
      data: { ...(body.permission != null && { Permission: body.permission }) },
    });
    this.acl.invalidate();
    return groupRow(row);
  }

  async removeGroup(id: number): Promise<void> {
    await this.getGroup(id);
    await this.prisma.role_Groups_Permissions.delete({ where: { Id: id } });
    this.acl.invalidate();
  }
}
