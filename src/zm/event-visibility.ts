// Row ACL for rows that hang off an event (frames, event data): a row is visible when the
// monitor of its event is. Hidden rows behave exactly like missing ones.
import type { AuthUser } from '../auth/auth-service.js';
import type { MonitorAcl } from '../auth/monitor-acl.js';
import type { PrismaClient } from '../db/prisma.js';

export class EventVisibility {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
  ) {}

  /** The caller's visible monitors (null: all). */
  async visible(user: AuthUser): Promise<Set<number> | null> {
    return (await this.acl.scope(user)).visible;
  }

  /** The event's monitor when the event exists and the caller may see it, else null. */
  async eventMonitor(user: AuthUser, eventId: bigint | number, visible?: Set<number> | null): Promise<number | null> {
    const [event, scope] = await Promise.all([
      this.prisma.events.findUnique({ where: { Id: BigInt(eventId) }, select: { MonitorId: true } }),
      visible === undefined ? this.visible(user) : Promise.resolve(visible),
    ]);
    if (!event || (scope && !scope.has(event.MonitorId))) return null;
    return event.MonitorId;
  }

  /**
   * Whether a row attached to `eventId` is visible: always for an unrestricted caller (rows of
   * a vanished event included), else when the event exists on a visible monitor.
   */
  async rowVisible(user: AuthUser, eventId: bigint | number | null, monitorId?: number | null): Promise<boolean> {
    const scope = await this.visible(user);
    if (!scope) return true;
    if (monitorId != null) return scope.has(monitorId);
    return eventId !== null && (await this.eventMonitor(user, eventId, scope)) !== null;
  }

  /**
   * One page of ids of the rows `from` (a FROM … WHERE clause naming `?` placeholders for the
   * visible monitors, e.g. `FROM Frames f JOIN Events e … WHERE e.MonitorId IN (…)`), and their
   * total: the rows of a restricted caller's list, read by id first because Prisma cannot
   * join to the event's monitor.
   */
  async idsPage(
    column: string,
    from: (monitors: string) => string,
    visible: Set<number>,
    page: { skip: number; take: number },
  ): Promise<{ ids: bigint[]; total: number }> {
    const scope = inList(visible);
    const sql = from(scope.sql);
    const [ids, count] = await Promise.all([
      this.prisma.$queryRawUnsafe<Array<{ Id: bigint }>>(
        `SELECT ${column} AS Id ${sql} ORDER BY ${column} LIMIT ? OFFSET ?`,
        ...scope.params,
        page.take,
        page.skip,
      ),
      this.prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(`SELECT COUNT(*) AS n ${sql}`, ...scope.params),
    ]);
    return { ids: ids.map((r) => BigInt(r.Id)), total: Number(count[0]?.n ?? 0) };
  }

  /** True when the monitor exists and the caller may see it. */
  async monitorVisible(user: AuthUser, monitorId: number, visible?: Set<number> | null): Promise<boolean> {
    const scope = visible === undefined ? await this.visible(user) : visible;
    if (scope && !scope.has(monitorId)) return false;
    return (await this.prisma.monitors.count({ where: { Id: monitorId } })) > 0;
  }
}

/** `(?, ?, …)` for an IN list, with its parameters in ascending order. */
export function inList(ids: Iterable<number>): { sql: string; params: number[] } {
  const params = [...ids].sort((a, b) => a - b);
  return { sql: `(${params.map(() => '?').join(', ')})`, params };
}
