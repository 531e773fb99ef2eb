// Frames: the per-frame rows zmc writes for an event (Normal, Bulk, Alarm). Visible when the
// event's monitor is visible. Clients page through one event's frames (`?event_id=`), in Id
// order, which EventId_idx (EventId, Id) serves without sorting.
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { decimalToString } from '../../db/prisma-json.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { Frames } from '../../generated/prisma/client.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { pageOf, pageRequest, type Page, listPage } from '../../api/pagination.js';
import { EventVisibility } from '../../zm/event-visibility.js';
import { parseTimeInput, processZoneClock, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';

export type FrameType = 'Normal' | 'Bulk' | 'Alarm';

export interface FrameResponse {
  /**
   * @isLong
   * @minimum 0
   */
  id: number;
  /**
   * @isLong
   * @minimum 0
   */
  event_id: number;
  /**
   * Frame number within the event, from 1.
   * @isInt
   * @minimum 0
   */
  frame_id: number;
  type: FrameType;
  /**
   * @isInt
   * @minimum 0
   */
  score: number;
  /** When the frame was captured, as UTC with `Z`; null when ZoneMinder stored a zero date. */
  time_stamp: DateTimeWrapper | null;
  /** Seconds since the event started, as a decimal string with two places. */
  delta: string;
}

export interface PaginatedFramesResponse extends Page<FrameResponse> {}

export interface CreateFrameRequest {
  /**
   * The event; must exist and be visible to the caller.
   * @isLong
   * @minimum 0
   */
  event_id: number;
  /**
   * Frame number within the event.
   * @isInt
   * @minimum 0
   * @maximum 4294967295
   */
  frame_id: number;
  type: FrameType;
  /**
   * Motion score.
   * @isInt
   * @minimum 0
   * @maximum 65535
   */
  score: number;
  /** ISO 8601: with `Z` or an offset an instant, without one ZoneMinder's local time. */
  time_stamp: string;
  /**
   * Seconds since the event started, e.g. `"1.25"` (-999999.99 to 999999.99).
   * @pattern ^-?\d{1,6}(\.\d{1,2})?$
   */
  delta: string;
}

export interface UpdateFrameRequest {
  type: FrameType;
  /**
   * Motion score; null leaves it unchanged.
   * @isInt
   * @minimum 0
   * @maximum 65535
   */
  score?: number | null;
}

function toResponse(row: Frames, clock: ZoneClock): FrameResponse {
  return {
    id: Number(row.Id),
    event_id: Number(row.EventId),
    frame_id: row.FrameId,
    type: row.Type,
    score: row.Score,
    time_stamp: clock.toUtcString(row.TimeStamp),
    delta: decimalToString(row.Delta, 2),
  };
}

const notFound = (id: number) => new NotFoundError(`Frame ${id} not found`, [['id', String(id)]], 'FILE');

export class FramesService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): FramesService {
    return new FramesService(s.prisma, s.acl, s.get(ZoneMinderClock));
  }

  private readonly visibility: EventVisibility;

  constructor(
    private readonly prisma: PrismaClient,
    acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock> = processZoneClock,
  ) {
    this.visibility = new EventVisibility(prisma, acl);
  }

  async list(
    user: AuthUser,
    eventId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<PaginatedFramesResponse> {
    const req = pageRequest(page, pageSize);
    const [visible, clock] = await Promise.all([this.visibility.visible(user), this.clock()]);
    const toJson = (row: Frames) => toResponse(row, clock);
    let where: { EventId?: bigint; Id?: { in: bigint[] } } = {};
    if (eventId !== undefined) {
      // A hidden event's frames are simply not there.
      if (visible && (await this.visibility.eventMonitor(user, eventId, visible)) === null) return pageOf([], 0, req);
      where = { EventId: BigInt(eventId) };
    } else if (visible) {
      if (!visible.size) return pageOf([], 0, req);
      const { ids, total } = await this.visibility.idsPage(
        'f.Id',
        (monitors) => `FROM Frames f JOIN Events e ON e.Id = f.EventId WHERE e.MonitorId IN ${monitors}`,
        visible,
        req,
      );
      const rows = await this.prisma.frames.findMany({ where: { Id: { in: ids } }, orderBy: { Id: 'asc' } });
      return pageOf(rows.map(toJson), total, req);
    }
    return listPage(
      req,
      this.prisma.frames.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.frames.count({ where }),
      toJson,
    );
  }

  async get(user: AuthUser, id: number): Promise<FrameResponse> {
    return toResponse(await this.visibleRow(user, id), await this.clock());
  }

  async create(user: AuthUser, body: CreateFrameRequest): Promise<FrameResponse> {
    const clock = await this.clock();
    if ((await this.visibility.eventMonitor(user, body.event_id)) === null) {
      throw new InvalidInputError('Invalid input', [['event_id', 'no such event']]);
    }
    const row = await this.prisma.frames.create({
      data: {
        EventId: BigInt(body.event_id),
        FrameId: body.frame_id,
        Type: body.type,
        Score: body.score,
        TimeStamp: parseTimeInput('time_stamp', body.time_stamp, clock, true),
        Delta: body.delta,
      },
    });
    return toResponse(row, clock);
  }

  async update(user: AuthUser, id: number, body: UpdateFrameRequest): Promise<FrameResponse> {
    await this.visibleRow(user, id);
    const row = await this.prisma.frames.update({
      where: { Id: BigInt(id) },
      data: { Type: body.type, ...(body.score != null && { Score: body.score }) },
    });
    return toResponse(row, await this.clock());
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.visibleRow(user, id);
    await this.prisma.frames.delete({ where: { Id: BigInt(id) } });
  }

  private async visibleRow(user: AuthUser, id: number): Promise<Frames> {
    const row = await this.prisma.frames.findUnique({ where: { Id: BigInt(id) } });
    if (!row || !(await this.visibility.rowVisible(user, row.EventId))) throw notFound(id);
    return row;
  }
}
