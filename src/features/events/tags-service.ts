// Event tags (the Tags table). Tags themselves are global; their event counts and event lists
// only ever count and show events of monitors the caller may see.
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { Tags } from '../../generated/prisma/client.js';
import { pageOf, pageRequest, type Page } from '../../api/pagination.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { parseTimeInput, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import { inList } from '../../zm/event-visibility.js';
import type { Services } from '../../registry.js';

export interface TagResponse {
  /**
   * @isLong
   * @minimum 0
   */
  id: number;
  name: string;
  /** When the tag was created, as UTC with `Z`. */
  create_date?: DateTimeWrapper | null;
  /**
   * Events carrying the tag, counting only events of monitors the caller may see.
   * @isLong
   * @minimum 0
   */
  event_count?: number | null;
}

export interface CreateTagRequest {
  /**
   * Tag name: unique, Latin-1 text (ZoneMinder stores tag names as latin1).
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  /** Creation time, ISO 8601 (without an offset: ZoneMinder local time); default now. */
  create_date?: DateTimeWrapper | null;
}

export interface UpdateTagRequest {
  /**
   * Tag name: unique, Latin-1 text.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
  /** Creation time, ISO 8601 (without an offset: ZoneMinder local time). */
  create_date?: DateTimeWrapper | null;
}

/** One event of a tag, as TagDetailResponse lists them. */
export interface EventSummary {
  /**
   * @isLong
   * @minimum 0
   */
  id: number;
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  name: string;
  /** Start of the event as UTC with `Z`, as in EventResponse. */
  start_date_time?: DateTimeWrapper | null;
}

/** A tag with one page of its (visible) events; not the usual envelope, as v3 clients expect. */
export interface TagDetailResponse {
  /**
   * @isLong
   * @minimum 0
   */
  id: number;
  name: string;
  /** When the tag was created, as UTC with `Z`. */
  create_date?: DateTimeWrapper | null;
  events: EventSummary[];
  /**
   * @isLong
   * @minimum 0
   */
  total_events: number;
  /**
   * @isLong
   * @minimum 0
   */
  current_page: number;
  /**
   * @isLong
   * @minimum 0
   */
  last_page: number;
  /**
   * @isLong
   * @minimum 0
   */
  per_page: number;
}

/** Tags.Name is latin1 in ZoneMinder's schema: anything else would fail in the database. */
function checkName(name: string | null | undefined): void {
  // eslint-disable-next-line no-control-regex -- the latin1 range starts at U+0000 on purpose
  if (name != null && /[^\u0000-\u00ff]/.test(name)) {
    throw new InvalidInputError('Invalid input', [
      ['name', 'must be Latin-1 text (ZoneMinder stores tag names as latin1)'],
    ]);
  }
}

const notFound = (id: number) => new NotFoundError(`Tag ${id} not found`, [['id', String(id)]], 'MESSAGE');

function toResponse(row: Tags, clock: ZoneClock, eventCount?: number): TagResponse {
  return {
    id: Number(row.Id),
    name: row.Name,
    create_date: clock.toUtcString(row.CreateDate),
    ...(eventCount !== undefined && { event_count: eventCount }),
  };
}

export class TagsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): TagsService {
    return new TagsService(s.prisma, s.acl, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock>,
  ) {}

  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<TagResponse>> {
    const req = pageRequest(page, pageSize);
    const [rows, total, scope, clock] = await Promise.all([
      this.prisma.tags.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.tags.count(),
      this.acl.scope(user),
      this.clock(),
    ]);
    const counts = await this.eventCounts(
      rows.map((r) => r.Id),
      scope.visible,
    );
    return pageOf(
      rows.map((r) => toResponse(r, clock, counts.get(String(r.Id)) ?? 0)),
      total,
      req,
    );
  }

  async get(user: AuthUser, id: number, page?: number, pageSize?: number): Promise<TagDetailResponse> {
    const req = pageRequest(page, pageSize);
    const [tag, scope, clock] = await Promise.all([this.row(id), this.acl.scope(user), this.clock()]);
    const base = { id: Number(tag.Id), name: tag.Name, create_date: clock.toUtcString(tag.CreateDate) };
    if (scope.visible && scope.visible.size === 0) return { ...base, ...this.envelope([], 0, req) };

    const visible = scope.visible ? inList(scope.visible) : null;
    const where = `FROM Events_Tags et JOIN Events e ON e.Id = et.EventId WHERE et.TagId = ?${visible ? ` AND e.MonitorId IN ${visible.sql}` : ''}`;
    const params = [tag.Id, ...(visible?.params ?? [])];
    const [rows, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<
        Array<{ Id: bigint | number; MonitorId: bigint | number; Name: string; StartDateTime: Date | null }>
      >(
        `SELECT e.Id, e.MonitorId, e.Name, e.StartDateTime ${where} ORDER BY e.StartDateTime DESC, e.Id DESC LIMIT ? OFFSET ?`,
        ...params,
        req.take,
        Math.min(req.skip, Number.MAX_SAFE_INTEGER),
      ),
      this.prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(`SELECT COUNT(*) AS n ${where}`, ...params),
    ]);
    const events = rows.map((r) => ({
      id: Number(r.Id),
      monitor_id: Number(r.MonitorId),
      name: r.Name,
      start_date_time: clock.toUtcString(r.StartDateTime),
    }));
    return { ...base, ...this.envelope(events, Number(counted[0]?.n ?? 0), req) };
  }

  async create(user: AuthUser, body: CreateTagRequest): Promise<TagResponse> {
    checkName(body.name);
    const clock = await this.clock();
    const row = await this.prisma.tags.create({
      data: {
        Name: body.name,
        CreatedBy: user.id,
        ...(body.create_date != null && { CreateDate: parseTimeInput('create_date', body.create_date, clock, true) }),
      },
    });
    return toResponse(row, clock, 0);
  }

  async update(user: AuthUser, id: number, body: UpdateTagRequest): Promise<TagResponse> {
    await this.row(id);
    checkName(body.name);
    const clock = await this.clock();
    const row = await this.prisma.tags.update({
      where: { Id: BigInt(id) },
      data: {
        ...(body.name != null && { Name: body.name }),
        ...(body.create_date != null && { CreateDate: parseTimeInput('create_date', body.create_date, clock, true) }),
      },
    });
    const counts = await this.eventCounts([row.Id], (await this.acl.scope(user)).visible);
    return toResponse(row, clock, counts.get(String(row.Id)) ?? 0);
  }

  /** Deletes the tag; its Events_Tags rows go with it (foreign key ON DELETE CASCADE). */
  async remove(id: number): Promise<void> {
    await this.row(id);
    await this.prisma.tags.delete({ where: { Id: BigInt(id) } });
  }

  private async row(id: number): Promise<Tags> {
    const row = await this.prisma.tags.findUnique({ where: { Id: BigInt(id) } });
    if (!row) throw notFound(id);
    return row;
  }

  private envelope<T>(events: T[], total: number, req: { page: number; pageSize: number }) {
    return {
      events,
      total_events: total,
      current_page: req.page,
      per_page: req.pageSize,
      last_page: Math.max(1, Math.ceil(total / req.pageSize)),
    };
  }

  /** Visible events per tag (by tag id as a string). */
  private async eventCounts(tagIds: bigint[], visible: Set<number> | null): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (!tagIds.length || (visible && visible.size === 0)) return counts;
    const monitors = visible ? inList(visible) : null;
    const rows = await this.prisma.$queryRawUnsafe<Array<{ TagId: bigint | number; n: bigint | number }>>(
      `SELECT et.TagId, COUNT(*) AS n FROM Events_Tags et${monitors ? ` JOIN Events e ON e.Id = et.EventId AND e.MonitorId IN ${monitors.sql}` : ''}
       WHERE et.TagId IN (${tagIds.map(() => '?').join(', ')}) GROUP BY et.TagId`,
      ...(monitors?.params ?? []),
      ...tagIds,
    );
    for (const r of rows) counts.set(String(r.TagId), Number(r.n));
    return counts;
  }
}
