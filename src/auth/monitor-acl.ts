// Row-level ACL over monitors: which monitors a user may see or edit (Monitors_Permissions,
// Groups_Permissions with nested groups, role rows, and the 1.36 Users.MonitorIds list).
// Default allow: a user with no row-level entries sees every monitor.
import type { AuthUser } from './auth-service.js';

export interface MonitorScope {
  /** null: no restriction; otherwise the ids the user may see. */
  visible: Set<number> | null;
  /** null: may edit every visible monitor (subject to feature RBAC); otherwise the editable ids. */
  editable: Set<number> | null;
}

export interface MonitorAcl {
  scope(user: AuthUser): Promise<MonitorScope>;
}

/** Placeholder until the row-level rules land: everything visible. */
export class AllowAllMonitorAcl implements MonitorAcl {
  async scope(): Promise<MonitorScope> {
    return { visible: null, editable: null };
  }
}
