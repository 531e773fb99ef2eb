// Row-level ACL over monitors and groups: which rows a user may see or edit.
//
// Sources, in ZoneMinder's order (docs/zoneminder/users.md, web `visibleMonitor`):
//   1. the user's Monitors_Permissions row, unless Inherit, decides;
//   2. the user's Groups_Permissions covering the monitor (a group covers its own monitors and
//      those of every descendant group): any None hides, otherwise any View/Edit shows;
//   3. the role's Role_Monitors_Permissions row; 4. the role's group rows, as in 2;
//   5. the 1.36 `Users.MonitorIds` list when that column still exists (bridged databases keep it,
//      and 1.37.27 copied it without 'None' rows, so honouring it keeps restricted viewers
//      restricted); 6. fallback: the effective Monitors area (the role's when the user's is None).
// Editability: an explicit Edit ⇒ yes; None/View ⇒ no; then groups (None or only View ⇒ no,
// Edit ⇒ yes); then the role rows; then the MonitorIds list; fallback Monitors ∈ {Edit, Create}.
//
// Default allow: a user with no row-level entries (no non-Inherit rows of their own or of their
// role, no MonitorIds list) is unrestricted, so `visible`/`editable` are null and list routes
// need no filter at all. Everything a scope needs is read in a handful of queries per user and
// kept for a few seconds, so a list costs O(1) queries whatever its length.
import { NotFoundError, PermissionDeniedError } from '../errors.js';
import type { AuthUser } from './auth-service.js';

export interface MonitorScope {
  /** null: no restriction; otherwise the ids the user may see. */
  visible: Set<number> | null;
  /** null: may edit every visible monitor (subject to feature RBAC); otherwise the editable ids. */
  editable: Set<number> | null;
}

/** The same shape for groups (Groups_Permissions, Role_Groups_Permissions, nested groups). */
export type GroupScope = MonitorScope;

export interface MonitorAcl {
  scope(user: AuthUser): Promise<MonitorScope>;
  groupScope(user: AuthUser): Promise<GroupScope>;
  /** Forgets cached scopes (all users, or one) after a change to permissions, groups or monitors. */
  invalidate(userId?: number): void;
}

const UNRESTRICTED: MonitorScope = Object.freeze({ visible: null, editable: null });

/** Everything visible; for tests and tools that run without row-level rules. */
export class AllowAllMonitorAcl implements MonitorAcl {
  async scope(): Promise<MonitorScope> {
    return UNRESTRICTED;
  }
  async groupScope(): Promise<GroupScope> {
    return UNRESTRICTED;
  }
  invalidate(): void {}
}

export function canSee(scope: MonitorScope, id: number): boolean {
  return scope.visible === null || scope.visible.has(id);
}

export function canEdit(scope: MonitorScope, id: number): boolean {
  return canSee(scope, id) && (scope.editable === null || scope.editable.has(id));
}

export function isUnrestricted(scope: MonitorScope): boolean {
  return scope.visible === null && scope.editable === null;
}

/** A hidden monitor answers exactly like a missing one: 404 MONITOR_NOT_FOUND_ERROR (code 4). */
export function monitorNotFound(id: number): NotFoundError {
  return new NotFoundError(`Monitor ${id} not found`, [['monitor_id', String(id)]], 'MONITOR');
}

export function requireVisibleMonitor(scope: MonitorScope, id: number): void {
  if (!canSee(scope, id)) throw monitorNotFound(id);
}

/** 404 when hidden (never reveal existence), 403 when visible but view-only. */
export function requireEditableMonitor(scope: MonitorScope, id: number): void {
  requireVisibleMonitor(scope, id);
  if (!canEdit(scope, id))
    throw new PermissionDeniedError(`Monitor ${id} is view-only for this account`, [['monitor_id', String(id)]]);
}

// ---------------------------------------------------------------------------------------------
// Evaluation (pure): the rows of one user → scopes.

export type RowPermission = 'Inherit' | 'None' | 'View' | 'Edit';
type Decisive = Exclude<RowPermission, 'Inherit'>;

export interface AclRows {
  /** The user's own Monitors / Groups area and the role's (null without a role). */
  userMonitors: string;
  roleMonitors: string | null;
  userGroups: string;
  roleGroups: string | null;
  /** 1.36 Users.MonitorIds: null when the column is absent or the list empty (= all). */
  monitorIds: Set<number> | null;
  userMonitorRows: Map<number, RowPermission>;
  userGroupRows: Map<number, RowPermission>;
  roleMonitorRows: Map<number, RowPermission>;
  roleGroupRows: Map<number, RowPermission>;
  /** Only needed when some row restricts: every monitor id, the group tree and memberships. */
  monitors: number[];
  groups: Array<{ id: number; parentId: number | null }>;
  memberships: Array<{ groupId: number; monitorId: number }>;
}

const decisive = (rows: Map<number, RowPermission>) =>
  new Map([...rows].filter((entry): entry is [number, Decisive] => entry[1] !== 'Inherit'));

/** True when nothing but the feature areas applies to the user (default allow). */
export function hasMonitorRules(
  rows: Pick<AclRows, 'monitorIds' | 'userMonitorRows' | 'userGroupRows' | 'roleMonitorRows' | 'roleGroupRows'>,
): boolean {
  return (
    rows.monitorIds !== null ||
    [rows.userMonitorRows, rows.userGroupRows, rows.roleMonitorRows, rows.roleGroupRows].some(
      (m) => decisive(m).size > 0,
    )
  );
}

export function hasGroupRules(rows: Pick<AclRows, 'userGroupRows' | 'roleGroupRows'>): boolean {
  return decisive(rows.userGroupRows).size > 0 || decisive(rows.roleGroupRows).size > 0;
}

/** The effective area: the user's own value unless it is None, then the role's (docs/zoneminder/users.md). */
function effective(own: string, role: string | null): string {
  return own === 'None' || !own ? (role ?? 'None') : own;
}

class GroupTree {
  private readonly children = new Map<number, number[]>();
  private readonly parent = new Map<number, number | null>();
  private readonly members = new Map<number, number[]>();

  constructor(groups: AclRows['groups'], memberships: AclRows['memberships']) {
    for (const g of groups) {
      this.parent.set(g.id, g.parentId);
      if (g.parentId !== null) {
        const list = this.children.get(g.parentId) ?? [];
        list.push(g.id);
        this.children.set(g.parentId, list);
      }
    }
    for (const m of memberships) {
      const list = this.members.get(m.groupId) ?? [];
      list.push(m.monitorId);
      this.members.set(m.groupId, list);
    }
  }

  /** The group and all its descendants; the visited set makes a ParentId cycle harmless. */
  subtree(root: number): Set<number> {
    const seen = new Set<number>();
    const stack = [root];
    while (stack.length) {
      const g = stack.pop()!;
      if (seen.has(g)) continue;
      seen.add(g);
      for (const c of this.children.get(g) ?? []) stack.push(c);
    }
    return seen;
  }

  /** The group and its ancestors, stopping at a cycle. */
  chain(id: number): number[] {
    const out: number[] = [];
    const seen = new Set<number>();
    let g: number | null | undefined = id;
    while (g !== null && g !== undefined && !seen.has(g)) {
      seen.add(g);
      out.push(g);
      g = this.parent.get(g);
    }
    return out;
  }

  monitorsUnder(root: number): number[] {
    return [...this.subtree(root)].flatMap((g) => this.members.get(g) ?? []);
  }

  ids(): number[] {
    return [...this.parent.keys()];
  }
}

/** Combines the levels of every group row that applies: any None wins, then Edit, then View. */
function combine(levels: Decisive[]): Decisive | null {
  if (levels.length === 0) return null;
  if (levels.includes('None')) return 'None';
  return levels.includes('Edit') ? 'Edit' : 'View';
}

/** For each monitor, the levels of the group rows covering it. */
function coverage(tree: GroupTree, rows: Map<number, RowPermission>): Map<number, Decisive[]> {
  const out = new Map<number, Decisive[]>();
  for (const [groupId, level] of decisive(rows)) {
    for (const m of new Set(tree.monitorsUnder(groupId))) {
      const list = out.get(m) ?? [];
      list.push(level);
      out.set(m, list);
    }
  }
  return out;
}

interface Decision {
  visible: boolean;
  editable: boolean;
}

const fromLevel = (level: Decisive): Decision => ({ visible: level !== 'None', editable: level === 'Edit' });

export function evaluateMonitorScope(rows: AclRows): MonitorScope {
  if (!hasMonitorRules(rows)) return UNRESTRICTED;
  const tree = new GroupTree(rows.groups, rows.memberships);
  const userMon = decisive(rows.userMonitorRows);
  const roleMon = decisive(rows.roleMonitorRows);
  const userGroups = coverage(tree, rows.userGroupRows);
  const roleGroups = coverage(tree, rows.roleGroupRows);
  const area = effective(rows.userMonitors, rows.roleMonitors);
  const fallback: Decision = { visible: area !== 'None', editable: area === 'Edit' || area === 'Create' };

  const decide = (id: number): Decision => {
    const own = userMon.get(id);
    if (own) return fromLevel(own);
    const viaGroups = combine(userGroups.get(id) ?? []);
    if (viaGroups) return fromLevel(viaGroups);
    const role = roleMon.get(id);
    if (role) return fromLevel(role);
    const viaRoleGroups = combine(roleGroups.get(id) ?? []);
    if (viaRoleGroups) return fromLevel(viaRoleGroups);
    if (rows.monitorIds) {
      const listed = rows.monitorIds.has(id);
      return { visible: listed && fallback.visible, editable: listed && fallback.editable };
    }
    return fallback;
  };

  const visible = new Set<number>();
  const editable = new Set<number>();
  for (const id of rows.monitors) {
    const d = decide(id);
    if (d.visible) visible.add(id);
    if (d.visible && d.editable) editable.add(id);
  }
  return { visible, editable };
}

export function evaluateGroupScope(rows: AclRows): GroupScope {
  if (!hasGroupRules(rows)) return UNRESTRICTED;
  const tree = new GroupTree(rows.groups, rows.memberships);
  const userRows = decisive(rows.userGroupRows);
  const roleRows = decisive(rows.roleGroupRows);
  const area = effective(rows.userGroups, rows.roleGroups);
  const fallback: Decision = { visible: area !== 'None', editable: area === 'Edit' };
  // A row on a group applies to it and to every descendant, so walk up the ancestor chain.
  const viaChain = (id: number, table: Map<number, Decisive>) =>
    combine(tree.chain(id).flatMap((g) => (table.has(g) ? [table.get(g)!] : [])));

  const visible = new Set<number>();
  const editable = new Set<number>();
  for (const id of tree.ids()) {
    const level = viaChain(id, userRows) ?? viaChain(id, roleRows);
    const d = level ? fromLevel(level) : fallback;
    if (d.visible) visible.add(id);
    if (d.visible && d.editable) editable.add(id);
  }
  return { visible, editable };
}

// ---------------------------------------------------------------------------------------------
// Loading from the database, with a short per-user cache.

/** The subset of the mariadb pool the ACL uses (explicit SQL: works on 1.36 through 1.39). */
export interface Queryable {
  query(sql: string, values?: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- driver rows, shaped by each query
}

interface SchemaShape {
  monitorRows: boolean;
  groupRows: boolean;
  roles: boolean;
  monitorIds: boolean;
}

export interface DbMonitorAclOptions {
  /** How long one user's rows are trusted (default 5 s; 0 disables the cache). */
  ttlMs?: number;
  now?: () => number;
}

const AREA = (v: unknown) => (typeof v === 'string' && v ? v : 'None');

function permissionMap(rows: Array<{ Id: number; Permission: string }>): Map<number, RowPermission> {
  return new Map(rows.map((r) => [Number(r.Id), r.Permission as RowPermission]));
}

/** '1,2, 3' → {1,2,3}; empty or absent → null (ZoneMinder 1.36: an empty list means all). */
export function parseMonitorIds(value: unknown): Set<number> | null {
  if (typeof value !== 'string') return null;
  const ids = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
  return ids.length ? new Set(ids) : null;
}

export class DbMonitorAcl implements MonitorAcl {
  private readonly cache = new Map<number, { at: number; rows: Promise<AclRows> }>();
  private shape?: Promise<SchemaShape>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Queryable,
    options: DbMonitorAclOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5000;
    this.now = options.now ?? Date.now;
  }

  async scope(user: AuthUser): Promise<MonitorScope> {
    return evaluateMonitorScope(await this.rows(user.id));
  }

  async groupScope(user: AuthUser): Promise<GroupScope> {
    return evaluateGroupScope(await this.rows(user.id));
  }

  invalidate(userId?: number): void {
    if (userId === undefined) this.cache.clear();
    else this.cache.delete(userId);
  }

  private rows(userId: number): Promise<AclRows> {
    const hit = this.cache.get(userId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.rows;
    const rows = this.load(userId);
    // The promise is cached, so concurrent requests share one load; a failure is not remembered.
    this.cache.set(userId, { at: this.now(), rows });
    rows.catch(() => {
      if (this.cache.get(userId)?.rows === rows) this.cache.delete(userId);
    });
    return rows;
  }

  private schema(): Promise<SchemaShape> {
    this.shape ??= Promise.all([
      this.db.query(
        `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()
            AND TABLE_NAME IN ('Monitors_Permissions','Groups_Permissions','Groups_Monitors','User_Roles',
                               'Role_Monitors_Permissions','Role_Groups_Permissions')`,
      ),
      this.db.query(
        `SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
            AND TABLE_NAME = 'Users' AND COLUMN_NAME IN ('RoleId','MonitorIds')`,
      ),
    ]).then(
      ([tables, columns]: Array<Array<{ name: string }>>) => {
        const t = new Set(tables.map((r) => r.name));
        const c = new Set(columns.map((r) => r.name));
        return {
          monitorRows: t.has('Monitors_Permissions'),
          groupRows: t.has('Groups_Permissions') && t.has('Groups_Monitors'),
          roles:
            c.has('RoleId') &&
            t.has('User_Roles') &&
            t.has('Role_Monitors_Permissions') &&
            t.has('Role_Groups_Permissions'),
          monitorIds: c.has('MonitorIds'),
        };
      },
      (err) => {
        this.shape = undefined; // retry on the next call rather than remembering an outage
        throw err;
      },
    );
    return this.shape;
  }

  private async load(userId: number): Promise<AclRows> {
    const shape = await this.schema();
    const userSql = `SELECT u.Monitors, u.\`Groups\`, ${shape.monitorIds ? 'u.MonitorIds' : 'NULL AS MonitorIds'},
        ${shape.roles ? 'u.RoleId, r.Monitors AS RoleMonitors, r.`Groups` AS RoleGroups' : 'NULL AS RoleId, NULL AS RoleMonitors, NULL AS RoleGroups'}
        FROM Users u ${shape.roles ? 'LEFT JOIN User_Roles r ON r.Id = u.RoleId' : ''} WHERE u.Id = ?`;
    const none = Promise.resolve([]);
    const [users, userMon, userGrp] = await Promise.all([
      this.db.query(userSql, [userId]),
      shape.monitorRows
        ? this.db.query(
            `SELECT MonitorId AS Id, Permission FROM Monitors_Permissions WHERE UserId = ? AND Permission <> 'Inherit'`,
            [userId],
          )
        : none,
      shape.groupRows
        ? this.db.query(
            `SELECT GroupId AS Id, Permission FROM Groups_Permissions WHERE UserId = ? AND Permission <> 'Inherit'`,
            [userId],
          )
        : none,
    ]);
    const user = users[0] ?? {};
    const roleId = user.RoleId == null ? null : Number(user.RoleId);
    const [roleMon, roleGrp] =
      roleId === null
        ? [[], []]
        : await Promise.all([
            this.db.query(
              `SELECT MonitorId AS Id, Permission FROM Role_Monitors_Permissions WHERE RoleId = ? AND Permission <> 'Inherit'`,
              [roleId],
            ),
            this.db.query(
              `SELECT GroupId AS Id, Permission FROM Role_Groups_Permissions WHERE RoleId = ? AND Permission <> 'Inherit'`,
              [roleId],
            ),
          ]);
    const rows: AclRows = {
      userMonitors: AREA(user.Monitors),
      roleMonitors: roleId === null ? null : AREA(user.RoleMonitors),
      userGroups: AREA(user.Groups),
      roleGroups: roleId === null ? null : AREA(user.RoleGroups),
      monitorIds: parseMonitorIds(user.MonitorIds),
      userMonitorRows: permissionMap(userMon),
      userGroupRows: permissionMap(userGrp),
      roleMonitorRows: permissionMap(roleMon),
      roleGroupRows: permissionMap(roleGrp),
      monitors: [],
      groups: [],
      memberships: [],
    };
    // Unrestricted users (the common case) stop here: no monitor or group listing is needed.
    if (!hasMonitorRules(rows)) return rows;
    const groupRules = rows.userGroupRows.size > 0 || rows.roleGroupRows.size > 0;
    const [monitors, groups, memberships] = await Promise.all([
      this.db.query('SELECT Id FROM Monitors'),
      groupRules ? this.db.query('SELECT Id, ParentId FROM `Groups`') : none,
      groupRules ? this.db.query('SELECT GroupId, MonitorId FROM Groups_Monitors') : none,
    ]);
    rows.monitors = monitors.map((r: { Id: number }) => Number(r.Id));
    rows.groups = groups.map((r: { Id: number; ParentId: number | null }) => ({
      id: Number(r.Id),
      parentId: r.ParentId == null ? null : Number(r.ParentId),
    }));
    rows.memberships = memberships.map((r: { GroupId: number; MonitorId: number }) => ({
      groupId: Number(r.GroupId),
      monitorId: Number(r.MonitorId),
    }));
    return rows;
  }
}
