// Tag assignments (the Events_Tags table). A row is visible when its event's monitor is; hidden
// rows behave exactly like missing ones. Who assigned a tag is taken from the token.
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import type { Events_Tags, Prisma } from '../../generated/prisma/client.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import { ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';

export interface EventTagResponse {
  /**
   * @isLong
   * @minimum 0
   */
  tag_id: number;
  /**
   * @isLong
   * @minimum 0
   */
  event_id: number;
  /** When the tag was assigned, as UTC with `Z`. */
  assigned_date?: DateTimeWrapper | null;
  /**
   * The user who assigned it.
   * @isInt
   * @minimum 0
   */
  assigned_by?: number | null;
}

export interface CreateEventTagRequest {
  /**
   * The event to tag; must exist and be visible.
   * @isLong
   * @minimum 0
   */
  event_id: number;
  /**
   * The tag; must exist.
   * @isLong
   * @minimum 0
   */
  tag_id: number;
  /**
   * Ignored: the assigning user is always the caller.
   * @isInt
   * @minimum 0
   */
  assigned_by?: number | null;
}

export interface EventTagFilters {
  event_id?: number;
  tag_id?: number;
  page?: number;
  page_size?: number;
}

const notFound = (tagId: number, eventId: number) =>
  new NotFoundError(
    `Tag ${tagId} is not assigned to event ${eventId}`,
    [
      ['tag_id', String(tagId)],
      ['event_id', String(eventId)],
    ],
    'EVENT_TAG',
  );

function toResponse(row: Events_Tags, clock: ZoneClock): EventTagResponse {
  return {
    tag_id: Number(row.TagId),
    event_id: Number(row.EventId),
    assigned_date: clock.toUtcString(row.AssignedDate),
    assigned_by: row.AssignedBy,
  };
}

export class EventsTagsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): EventsTagsService {
    return new EventsTagsService(s.prisma, s.acl, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock>,
  ) {}

  async list(user: AuthUser, filters: EventTagFilters): Promise<Page<EventTagResponse>> {
    const req = pageRequest(filters.page, filters.page_size);
    const clock = await this.clock();
    const where = await this.visibleWhere(user, {
      ...(filters.event_id !== undefined && { EventId: BigInt(filters.event_id) }),
      ...(filters.tag_id !== undefined && { TagId: BigInt(filters.tag_id) }),
    });
    return listPage(
      req,
      this.prisma.events_Tags.findMany({
        where,
        orderBy: [{ TagId: 'asc' }, { EventId: 'asc' }],
        skip: req.skip,
        take: req.take,
      }),
      this.prisma.events_Tags.count({ where }),
      (row) => toResponse(row, clock),
    );
  }

  async get(user: AuthUser, tagId: number, eventId: number): Promise<EventTagResponse> {
    return toResponse(await this.visibleRow(user, tagId, eventId), await this.clock());
  }

  async create(user: AuthUser, body: CreateEventTagRequest): Promise<EventTagResponse> {
    const [event, tag, scope, clock] = await Promise.all([
      this.prisma.events.findUnique({ where: { Id: BigInt(body.event_id) }, select: { MonitorId: true } }),
      this.prisma.tags.findUnique({ where: { Id: BigInt(body.tag_id) }, select: { Id: true } }),
      this.acl.scope(user),
      this.clock(),
    ]);
    const details: Array<[string, string]> = [];
    if (!event || (scope.visible && !scope.visible.has(event.MonitorId))) details.push(['event_id', 'no such event']);
    if (!tag) details.push(['tag_id', 'no such tag']);
    if (details.length) throw new InvalidInputError('Invalid input', details);

    const [row] = await this.prisma.$transaction([
      this.prisma.events_Tags.create({
        data: { TagId: BigInt(body.tag_id), EventId: BigInt(body.event_id), AssignedBy: user.id },
      }),
      // As ZoneMinder's UI does when it assigns a tag.
      this.prisma.tags.update({ where: { Id: BigInt(body.tag_id) }, data: { LastAssignedDate: clock.now() } }),
    ]);
    return toResponse(row, clock);
  }

  async remove(user: AuthUser, tagId: number, eventId: number): Promise<void> {
    await this.visibleRow(user, tagId, eventId);
    await this.prisma.events_Tags.delete({
      where: { TagId_EventId: { TagId: BigInt(tagId), EventId: BigInt(eventId) } },
    });
  }

  private async visibleRow(user: AuthUser, tagId: number, eventId: number): Promise<Events_Tags> {
    const where = await this.visibleWhere(user, { TagId: BigInt(tagId), EventId: BigInt(eventId) });
    const row = await this.prisma.events_Tags.findFirst({ where });
    if (!row) throw notFound(tagId, eventId);
    return row;
  }

  private async visibleWhere(
    user: AuthUser,
    where: Prisma.Events_TagsWhereInput,
  ): Promise<Prisma.Events_TagsWhereInput> {
    const { visible } = await this.acl.scope(user);
    return visible ? { ...where, Events: { MonitorId: { in: [...visible] } } } : where;
  }
}
