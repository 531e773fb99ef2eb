// Snapshots (named collections of events: the Snapshots and Snapshots_Events tables). The
// creator is taken from the token. A snapshot's event rows are visible when the event's
// monitor is; hidden rows behave exactly like missing ones.
import type { AuthUser } from '../../auth/auth-service.js';
import { fromLocalDateTimeInput, toLocalDateTimeString } from '../../db/datetime.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError, notFound } from '../../errors.js';
import type { Prisma, Snapshots, Snapshots_Events } from '../../generated/prisma/client.js';
import type { LocalDateTime } from '../../api/envelopes.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import { ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';
import { AclDbService } from '../db-service.js';

export interface SnapshotResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name?: string | null;
  description?: string | null;
  /**
   * The user who created the snapshot.
   * @isInt
   */
  created_by?: number | null;
  /** When it was created (ZoneMinder local time). */
  created_on?: LocalDateTime | null;
}

export interface CreateSnapshotRequest {
  /**
   * Snapshot name.
   * @maxLength 64
   */
  name?: string | null;
  /**
   * Free text.
   * @maxLength 65535
   */
  description?: string | null;
  /**
   * Ignored: the creator is always the caller.
   * @isInt
   */
  created_by?: number | null;
  /** Creation time (ZoneMinder local time); default now. */
  created_on?: LocalDateTime | null;
}

export interface UpdateSnapshotRequest {
  /**
   * Snapshot name; null clears it.
   * @maxLength 64
   */
  name?: string | null;
  /**
   * Free text; null clears it.
   * @maxLength 65535
   */
  description?: string | null;
  /**
   * Ignored: the creator never changes.
   * @isInt
   */
  created_by?: number | null;
  /** Creation time (ZoneMinder local time). */
  created_on?: LocalDateTime | null;
}

export interface SnapshotEventResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /**
   * @isInt
   * @minimum 0
   */
  snapshot_id: number;
  /**
   * @isLong
   * @minimum 0
   */
  event_id: number;
}

export interface CreateSnapshotEventRequest {
  /**
   * The snapshot; must exist.
   * @isInt
   * @minimum 0
   */
  snapshot_id: number;
  /**
   * The event; must exist and be visible.
   * @isLong
   * @minimum 0
   */
  event_id: number;
}

/** A local date-time input, as a 400 naming the field when malformed. */
function localDateTime(field: string, text: string): Date {
  try {
    return fromLocalDateTimeInput(text);
  } catch {
    throw new InvalidInputError('Invalid input', [
      [field, 'must be a local date-time YYYY-MM-DDTHH:MM:SS (no offset)'],
    ]);
  }
}

function toSnapshot(row: Snapshots): SnapshotResponse {
  return {
    id: row.Id,
    name: row.Name,
    description: row.Description,
    created_by: row.CreatedBy,
    created_on: toLocalDateTimeString(row.CreatedOn),
  };
}

function toSnapshotEvent(row: Snapshots_Events): SnapshotEventResponse {
  return { id: row.Id, snapshot_id: row.SnapshotId, event_id: Number(row.EventId) };
}

export class SnapshotsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): SnapshotsService {
    return new SnapshotsService(s.prisma, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: () => Promise<ZoneClock>,
  ) {}

  async list(page?: number, pageSize?: number): Promise<Page<SnapshotResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.snapshots.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.snapshots.count(),
      toSnapshot,
    );
  }

  async get(id: number): Promise<SnapshotResponse> {
    return toSnapshot(await this.row(id));
  }

  async create(user: AuthUser, body: CreateSnapshotRequest): Promise<SnapshotResponse> {
    const createdOn =
      body.created_on != null ? localDateTime('created_on', body.created_on) : (await this.clock()).now();
    createdOn.setUTCMilliseconds(0);
    const row = await this.prisma.snapshots.create({
      data: {
        Name: body.name ?? null,
        Description: body.description ?? null,
        CreatedBy: user.id,
        CreatedOn: createdOn,
      },
    });
    return toSnapshot(row);
  }

  async update(id: number, body: UpdateSnapshotRequest): Promise<SnapshotResponse> {
    await this.row(id);
    const row = await this.prisma.snapshots.update({
      where: { Id: id },
      data: {
        ...(body.name !== undefined && { Name: body.name }),
        ...(body.description !== undefined && { Description: body.description }),
        ...(body.created_on != null && { CreatedOn: localDateTime('created_on', body.created_on) }),
      },
    });
    return toSnapshot(row);
  }

  /** Deletes the snapshot; its event rows go with it (foreign key ON DELETE CASCADE). */
  async remove(id: number): Promise<void> {
    await this.row(id);
    await this.prisma.snapshots.delete({ where: { Id: id } });
  }

  private async row(id: number): Promise<Snapshots> {
    const row = await this.prisma.snapshots.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Snapshot', id, 'MESSAGE');
    return row;
  }
}

export class SnapshotEventsService extends AclDbService {
  async list(
    user: AuthUser,
    filters: { snapshot_id?: number; page?: number; page_size?: number },
  ): Promise<Page<SnapshotEventResponse>> {
    const req = pageRequest(filters.page, filters.page_size);
    const where = await this.visibleWhere(
      user,
      filters.snapshot_id !== undefined ? { SnapshotId: filters.snapshot_id } : {},
    );
    return listPage(
      req,
      this.prisma.snapshots_Events.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.snapshots_Events.count({ where }),
      toSnapshotEvent,
    );
  }

  async get(user: AuthUser, id: number): Promise<SnapshotEventResponse> {
    return toSnapshotEvent(await this.visibleRow(user, id));
  }

  async create(user: AuthUser, body: CreateSnapshotEventRequest): Promise<SnapshotEventResponse> {
    const [snapshot, event, scope] = await Promise.all([
      this.prisma.snapshots.findUnique({ where: { Id: body.snapshot_id }, select: { Id: true } }),
      this.prisma.events.findUnique({ where: { Id: BigInt(body.event_id) }, select: { MonitorId: true } }),
      this.acl.scope(user),
    ]);
    const details: Array<[string, string]> = [];
    if (!snapshot) details.push(['snapshot_id', 'no such snapshot']);
    if (!event || (scope.visible && !scope.visible.has(event.MonitorId))) details.push(['event_id', 'no such event']);
    if (details.length) throw new InvalidInputError('Invalid input', details);
    const row = await this.prisma.snapshots_Events.create({
      data: { SnapshotId: body.snapshot_id, EventId: BigInt(body.event_id) },
    });
    return toSnapshotEvent(row);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.visibleRow(user, id);
    await this.prisma.snapshots_Events.delete({ where: { Id: id } });
  }

  private async visibleRow(user: AuthUser, id: number): Promise<Snapshots_Events> {
    const row = await this.prisma.snapshots_Events.findFirst({ where: await this.visibleWhere(user, { Id: id }) });
    if (!row) throw notFound('Snapshot event', id, 'FILE');
    return row;
  }

  private async visibleWhere(
    user: AuthUser,
    where: Prisma.Snapshots_EventsWhereInput,
  ): Promise<Prisma.Snapshots_EventsWhereInput> {
    const { visible } = await this.acl.scope(user);
    return visible ? { ...where, Events: { MonitorId: { in: [...visible] } } } : where;
  }
}
