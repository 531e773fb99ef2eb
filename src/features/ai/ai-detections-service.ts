// AI detections (AI_Detections, ZoneMinder 1.39.17): objects found in an event's frames, with
// class, confidence and bounding box. They are event data, so gated on Events; the monitor row
// ACL applies through the event's monitor: detections of hidden monitors are filtered from lists
// and answer 404 by id, and an event the caller cannot see is "unknown" on create (400).
import type { AuthUser } from '../../auth/auth-service.js';
import { canSee } from '../../auth/monitor-acl.js';
import { bigintToJson, decimalToString } from '../../db/prisma-json.js';
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { AI_Detections, Prisma } from '../../generated/prisma/client.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { parseTimeInput, processZoneClock, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';

export interface AiDetectionResponse {
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
   * The Frames row (Frames.Id); null when not tied to a frame.
   * @isLong
   * @minimum 0
   */
  frame_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   */
  object_class_id: number;
  /** 0..1 as a decimal string with 4 places ("0.8750"), like other ZoneMinder decimals. */
  confidence: string;
  /** @isInt */
  bounding_box_x?: number | null;
  /** @isInt */
  bounding_box_y?: number | null;
  /** @isInt */
  bounding_box_width?: number | null;
  /** @isInt */
  bounding_box_height?: number | null;
  /** As UTC with `Z`; DetectedAt is TIMESTAMP(3), so milliseconds appear when non-zero. */
  detected_at?: DateTimeWrapper | null;
}

interface DetectionFields {
  /**
   * Bounding box left, in pixels.
   * @isLong
   * @minimum 0
   * @maximum 4294967295
   */
  bounding_box_x?: number | null;
  /**
   * Bounding box top, in pixels.
   * @isLong
   * @minimum 0
   * @maximum 4294967295
   */
  bounding_box_y?: number | null;
  /**
   * Bounding box width, in pixels.
   * @isLong
   * @minimum 0
   * @maximum 4294967295
   */
  bounding_box_width?: number | null;
  /**
   * Bounding box height, in pixels.
   * @isLong
   * @minimum 0
   * @maximum 4294967295
   */
  bounding_box_height?: number | null;
  /**
   * When it was detected, ISO 8601 with up to milliseconds (without an offset: ZoneMinder local
   * time); omitted on create: now.
   */
  detected_at?: DateTimeWrapper | null;
  /**
   * A Frames row (Frames.Id) of the detection's event; null: none.
   * @isLong
   * @minimum 0
   */
  frame_id?: number | null;
}

export interface CreateAiDetectionRequest extends DetectionFields {
  /**
   * An event the caller can see.
   * @isLong
   * @minimum 0
   */
  event_id: number;
  /**
   * An existing AI object class.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  object_class_id: number;
  /**
   * Confidence 0..1 (stored with 4 decimals).
   * @minimum 0
   * @maximum 1
   */
  confidence: number;
}

export interface UpdateAiDetectionRequest extends DetectionFields {
  /**
   * An existing AI object class.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  object_class_id?: number | null;
  /**
   * Confidence 0..1.
   * @minimum 0
   * @maximum 1
   */
  confidence?: number | null;
}

function toResponse(row: AI_Detections, clock: ZoneClock): AiDetectionResponse {
  return {
    id: bigintToJson(row.Id) as number,
    event_id: bigintToJson(row.EventId) as number,
    frame_id: row.FrameId === null ? null : (bigintToJson(row.FrameId) as number),
    object_class_id: row.ObjectClassId,
    confidence: decimalToString(row.Confidence, 4),
    bounding_box_x: row.BoundingBoxX,
    bounding_box_y: row.BoundingBoxY,
    bounding_box_width: row.BoundingBoxWidth,
    bounding_box_height: row.BoundingBoxHeight,
    detected_at: clock.toUtcString(row.DetectedAt, true),
  };
}

function toData(body: CreateAiDetectionRequest | UpdateAiDetectionRequest, clock: ZoneClock): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (body.object_class_id != null) data.ObjectClassId = body.object_class_id;
  if (body.confidence != null) data.Confidence = body.confidence.toFixed(4);
  if (body.bounding_box_x !== undefined) data.BoundingBoxX = body.bounding_box_x;
  if (body.bounding_box_y !== undefined) data.BoundingBoxY = body.bounding_box_y;
  if (body.bounding_box_width !== undefined) data.BoundingBoxWidth = body.bounding_box_width;
  if (body.bounding_box_height !== undefined) data.BoundingBoxHeight = body.bounding_box_height;
  if (body.frame_id !== undefined) data.FrameId = body.frame_id === null ? null : BigInt(body.frame_id);
  if (body.detected_at != null) data.DetectedAt = parseTimeInput('detected_at', body.detected_at, clock, true);
  return data;
}

export class AiDetectionsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): AiDetectionsService {
    return new AiDetectionsService(s.prisma, s.acl, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock> = processZoneClock,
  ) {}

  async list(
    user: AuthUser,
    eventId: number | undefined,
    objectClassId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<Page<AiDetectionResponse>> {
    const req = pageRequest(page, pageSize);
    const [scope, clock] = await Promise.all([this.acl.scope(user), this.clock()]);
    const where: Prisma.AI_DetectionsWhereInput = {
      AND: [
        eventId === undefined ? {} : { EventId: BigInt(eventId) },
        objectClassId === undefined ? {} : { ObjectClassId: objectClassId },
        scope.visible === null ? {} : { Events: { MonitorId: { in: [...scope.visible] } } },
      ],
    };
    return listPage(
      req,
      this.prisma.aI_Detections.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.aI_Detections.count({ where }),
      (r) => toResponse(r, clock),
    );
  }

  /** The monitor of an event, or null when the event is missing or hidden from the caller. */
  private async visibleEvent(user: AuthUser, eventId: bigint): Promise<{ MonitorId: number } | null> {
    const scope = await this.acl.scope(user);
    const event = await this.prisma.events.findUnique({ where: { Id: eventId }, select: { MonitorId: true } });
    return event && canSee(scope, event.MonitorId) ? event : null;
  }

  private async row(user: AuthUser, id: number): Promise<AI_Detections> {
    const row = await this.prisma.aI_Detections.findUnique({ where: { Id: BigInt(id) } });
    if (!row || !(await this.visibleEvent(user, row.EventId))) throw notFound('AI detection', id);
    return row;
  }

  async get(user: AuthUser, id: number): Promise<AiDetectionResponse> {
    return toResponse(await this.row(user, id), await this.clock());
  }

  /** Unknown (or hidden) event, unknown class, or a frame of another event: 400 naming the fields. */
  private async checkRefs(
    eventId: bigint,
    body: DetectionFields & { object_class_id?: number | null },
    eventVisible: boolean,
  ): Promise<void> {
    const [objectClass, frame] = await Promise.all([
      body.object_class_id == null
        ? true
        : this.prisma.aI_Object_Classes.findUnique({ where: { Id: body.object_class_id }, select: { Id: true } }),
      body.frame_id == null
        ? null
        : this.prisma.frames.findUnique({ where: { Id: BigInt(body.frame_id) }, select: { EventId: true } }),
    ]);
    const problems: Array<[string, string]> = [];
    if (!eventVisible) problems.push(['event_id', `unknown event ${eventId}`]);
    if (!objectClass) problems.push(['object_class_id', `unknown object class ${body.object_class_id}`]);
    if (body.frame_id != null && frame?.EventId !== eventId)
      problems.push(['frame_id', `no frame ${body.frame_id} in event ${eventId}`]);
    if (problems.length) throw new InvalidInputError('Invalid input', problems);
  }

  async create(user: AuthUser, body: CreateAiDetectionRequest): Promise<AiDetectionResponse> {
    const eventId = BigInt(body.event_id);
    await this.checkRefs(eventId, body, (await this.visibleEvent(user, eventId)) !== null);
    const clock = await this.clock();
    const row = await this.prisma.aI_Detections.create({
      data: { ...toData(body, clock), EventId: eventId } as Prisma.AI_DetectionsUncheckedCreateInput,
    });
    return toResponse(row, clock);
  }

  async update(user: AuthUser, id: number, body: UpdateAiDetectionRequest): Promise<AiDetectionResponse> {
    const row = await this.row(user, id);
    await this.checkRefs(row.EventId, body, true);
    const clock = await this.clock();
    const updated = await this.prisma.aI_Detections.update({
      where: { Id: row.Id },
      data: toData(body, clock) as Prisma.AI_DetectionsUncheckedUpdateInput,
    });
    return toResponse(updated, clock);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    const row = await this.row(user, id);
    await this.prisma.aI_Detections.delete({ where: { Id: row.Id } });
  }
}
