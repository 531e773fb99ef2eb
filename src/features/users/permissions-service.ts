// Row-level permission rows: Monitors_Permissions and Groups_Permissions (System area only, so a
// Groups- or Monitors-Edit user cannot raise their own rights). Every write drops the cached
// scopes so the change applies at once rather than after the ACL cache's few seconds.
//
// On ZoneMinder 1.36 (Users.MonitorIds) the rows live beside it (src/db/side-tables.ts) and each
// write is written back, in its transaction, to the user's MonitorIds: the list ZoneMinder's own
// console and API, and zmgate's ACL, enforce. ZoneMinder's own UI edits MonitorIds only, so before
// the rows are read or written they are brought in line with it (driftFromMonitorIds): a write
// never restores a list ZoneMinder's admin has since changed. docs/zoneminder/coexistence.md,
// "Permissions on 1.36".
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { LiveColumns } from '../../db/live-columns.js';
import { parseMonitorIds } from '../../db/migrations/monitor-permissions.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { Services } from '../../registry.js';
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

type Tx = Pick<PrismaClient, '$queryRawUnsafe' | '$executeRawUnsafe'>;

interface MonitorIdsUser {
  Id: number | bigint;
  Monitors: string | null;
  MonitorIds: string | null;
}

interface SideRow {
  Id: number | bigint;
  UserId: number | bigint;
  MonitorId: number | bigint;
  Permission: string;
}

/** A side row to write so that it says what MonitorIds says (id null: a row to add). */
interface Drift {
  id: number | null;
  userId: number;
  monitorId: number;
  permission: 'None' | 'View' | 'Edit' | 'Inherit';
}

/** What a 1.36 user's Monitors area grants on a listed monitor: View, Edit, or nothing. */
function grantedBy(area: string | null | undefined): 'View' | 'Edit' | null {
  if (area === 'Edit' || area === 'Create') return 'Edit';
  return area === 'View' ? 'View' : null;
}

/**
 * Where a 1.36 user's side rows disagree with the user's MonitorIds on whether a monitor is shown.
 * MonitorIds is the truth (ZoneMinder enforces it): empty means every monitor, otherwise only the
 * listed ones. A row shows its monitor when it is View or Edit, or Inherit or absent (as writeBack
 * reads them). A monitor to show gets Inherit under an empty list, else the level the user's
 * Monitors area grants; one to hide gets None. Users whose area is None are left alone: 1.36
 * shows them nothing whatever the list says.
 */
export function driftFromMonitorIds(users: MonitorIdsUser[], monitors: number[], rows: SideRow[]): Drift[] {
  const byPair = new Map(rows.map((r) => [`${Number(r.UserId)}:${Number(r.MonitorId)}`, r]));
  const drift: Drift[] = [];
  for (const user of users) {
    const granted = grantedBy(user.Monitors);
    if (granted === null) continue;
    const userId = Number(user.Id);
    const listed = new Set(parseMonitorIds(user.MonitorIds));
    const all = listed.size === 0;
    for (const monitorId of monitors) {
      const row = byPair.get(`${userId}:${monitorId}`);
      const shown = row?.Permission !== 'None';
      const truth = all || listed.has(monitorId);
      if (shown === truth) continue;
      drift.push({
        id: row ? Number(row.Id) : null,
        userId,
        monitorId,
        permission: !truth ? 'None' : all ? 'Inherit' : granted,
      });
    }
  }
  return drift;
}

export class PermissionsService extends AclDbService {
  static override from<T>(
    this: new (prisma: PrismaClient, acl: MonitorAcl, columns?: LiveColumns) => T,
    s: Services,
  ): T {
    return new this(s.prisma, s.acl, s.columns);
  }

  constructor(
    prisma: PrismaClient,
    acl: MonitorAcl,
    private readonly columns?: Pick<LiveColumns, 'tables'>,
  ) {
    super(prisma, acl);
  }

  /** ZoneMinder 1.36: a user's monitors are Users.MonitorIds. */
  private async monitorIdsLive(): Promise<boolean> {
    return !!(await this.columns?.tables())?.get('Users')?.has('MonitorIds');
  }

  /** The drift of `userIds` (every user when omitted), read in `db` (FOR UPDATE in a transaction). */
  private async drift(db: Tx, userIds?: number[], lock = false): Promise<Drift[]> {
    const only = userIds ? ` AND Id IN (${userIds.map(() => '?').join(', ')})` : '';
    const users = await db.$queryRawUnsafe<MonitorIdsUser[]>(
      `SELECT Id, Monitors, MonitorIds FROM Users WHERE 1 = 1${only} ORDER BY Id${lock ? ' FOR UPDATE' : ''}`,
      ...(userIds ?? []),
    );
    if (users.length === 0) return [];
    const [monitors, rows] = await Promise.all([
      db.$queryRawUnsafe<Array<{ Id: number | bigint }>>('SELECT Id FROM Monitors ORDER BY Id'),
      db.$queryRawUnsafe<SideRow[]>(
        `SELECT Id, UserId, MonitorId, Permission FROM Monitors_Permissions WHERE UserId IN (${users.map(() => '?').join(', ')})`,
        ...users.map((u) => Number(u.Id)),
      ),
    ]);
    return driftFromMonitorIds(
      users,
      monitors.map((m) => Number(m.Id)),
      rows,
    );
  }

  private async applyDrift(tx: Tx, drift: Drift[]): Promise<void> {
    for (const d of drift) {
      if (d.id !== null)
        await tx.$executeRawUnsafe('UPDATE Monitors_Permissions SET Permission = ? WHERE Id = ?', d.permission, d.id);
      else
        await tx.$executeRawUnsafe(
          'INSERT INTO Monitors_Permissions (MonitorId, UserId, Permission) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE Permission = VALUES(Permission)',
          d.monitorId,
          d.userId,
          d.permission,
        );
    }
  }

  /**
   * On 1.36, brings the side rows in line with MonitorIds before they are read: looked at without
   * locks, and only where they differ rewritten under the users' row locks (checked again there).
   */
  private async syncWithMonitorIds(): Promise<void> {
    if (!(await this.monitorIdsLive())) return;
    const seen = await this.drift(this.prisma);
    if (seen.length === 0) return;
    const userIds = [...new Set(seen.map((d) => d.userId))];
    await this.prisma.$transaction(async (tx) => this.applyDrift(tx, await this.drift(tx, userIds, true)));
    for (const id of userIds) this.acl.invalidate(id);
  }

  /**
   * A 1.36 write of `permission` for `userId`: only what MonitorIds can say (None, Inherit, or the
   * level the user's Monitors area grants on a listed monitor). Runs `write` and writes the user's
   * rows back to MonitorIds in one transaction.
   */
  private async onMonitorIds<R extends Row>(
    userId: number,
    permission: string | null | undefined,
    write: (tx: PrismaClient) => Promise<R>,
  ): Promise<R> {
    return this.prisma.$transaction(async (tx) => {
      const [user] = await tx.$queryRawUnsafe<Array<{ Monitors: string | null }>>(
        'SELECT Monitors FROM Users WHERE Id = ? FOR UPDATE',
        userId,
      );
      const granted = grantedBy(user?.Monitors);
      // Rows first as ZoneMinder's list now says, so that writing back keeps its admin's changes.
      await this.applyDrift(tx, await this.drift(tx, [userId]));
      if (permission && permission !== 'None' && permission !== 'Inherit' && permission !== granted) {
        throw new InvalidInputError('Invalid input', [
          [
            'permission',
            `ZoneMinder 1.36 can only show or hide a monitor for this user (MonitorIds); its level comes from the user's Monitors permission (${user?.Monitors ?? 'None'}): use None, Inherit${granted ? ` or ${granted}` : ''}`,
          ],
        ]);
      }
      const row = await write(tx as unknown as PrismaClient);
      await this.writeBack(tx, Number(row.UserId), granted);
      return row;
    });
  }

  /** The user's rows as 1.36's MonitorIds: the monitors it may see ('' for all of them). */
  private async writeBack(tx: Tx, userId: number, granted: 'View' | 'Edit' | null): Promise<void> {
    const [monitors, rows] = await Promise.all([
      tx.$queryRawUnsafe<Array<{ Id: number | bigint }>>('SELECT Id FROM Monitors ORDER BY Id'),
      tx.$queryRawUnsafe<Array<{ MonitorId: number | bigint; Permission: string }>>(
        'SELECT MonitorId, Permission FROM Monitors_Permissions WHERE UserId = ?',
        userId,
      ),
    ]);
    const level = new Map(rows.map((r) => [Number(r.MonitorId), r.Permission]));
    const ids = monitors.map((m) => Number(m.Id));
    const visible = ids.filter((id) => {
      const p = level.get(id);
      return p === 'View' || p === 'Edit' || ((p === undefined || p === 'Inherit') && granted !== null);
    });
    // An empty MonitorIds means every monitor to 1.36: a user who may see none must keep a list.
    if (granted !== null && ids.length > 0 && visible.length === 0) {
      throw new InvalidInputError('Invalid input', [
        [
          'permission',
          "ZoneMinder 1.36 cannot hide every monitor from a user by MonitorIds (an empty list means all): set the user's Monitors permission to None instead",
        ],
      ]);
    }
    await tx.$executeRawUnsafe(
      'UPDATE Users SET MonitorIds = ? WHERE Id = ?',
      visible.length === ids.length ? '' : visible.join(','),
      userId,
    );
  }
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
    await this.syncWithMonitorIds();
    return listPage(
      req,
      this.prisma.monitors_Permissions.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.monitors_Permissions.count(),
      monitorRow,
    );
  }

  async getMonitor(id: number): Promise<MonitorPermissionResponse> {
    await this.syncWithMonitorIds();
    const row = await this.prisma.monitors_Permissions.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Monitor permission', id, 'FILE');
    return monitorRow(row);
  }

  async createMonitor(body: CreateMonitorPermissionRequest): Promise<MonitorPermissionResponse> {
    await this.checkRefs(body.user_id, ['monitor_id', body.monitor_id]);
    // A second row for the same (monitor, user) is a unique-index 409, mapped centrally.
    const create = (db: PrismaClient) =>
      db.monitors_Permissions.create({
        data: { MonitorId: body.monitor_id, UserId: body.user_id, Permission: body.permission },
      });
    const row = (await this.monitorIdsLive())
      ? await this.onMonitorIds(body.user_id, body.permission, create)
      : await create(this.prisma);
    this.changed(row);
    return monitorRow(row);
  }

  async updateMonitor(id: number, body: UpdateMonitorPermissionRequest): Promise<MonitorPermissionResponse> {
    const current = await this.getMonitor(id);
    const update = (db: PrismaClient) =>
      db.monitors_Permissions.update({
        where: { Id: id },
        data: { ...(body.permission != null && { Permission: body.permission }) },
      });
    const row = (await this.monitorIdsLive())
      ? await this.onMonitorIds(current.user_id, body.permission, update)
      : await update(this.prisma);
    this.changed(row);
    return monitorRow(row);
  }

  async removeMonitor(id: number): Promise<void> {
    const current = await this.getMonitor(id);
    const remove = (db: PrismaClient) => db.monitors_Permissions.delete({ where: { Id: id } });
    this.changed(
      (await this.monitorIdsLive())
        ? await this.onMonitorIds(current.user_id, null, remove)
        : await remove(this.prisma),
    );
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
    if (!row) throw notFound('Group permission', id, 'FILE');
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
