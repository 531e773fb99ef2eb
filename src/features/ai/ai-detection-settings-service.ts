// Per-monitor AI detection settings (AI_Detection_Settings, ZoneMinder 1.39.17): for each object
// class, whether a monitor detects and reports it, the confidence threshold and the box colour.
// A row with monitor_id null is the site-wide default for that class. Monitor configuration, so
// gated on Monitors, with the monitor row ACL: rows of hidden monitors are filtered out (404 by
// id); writing a monitor's row needs the monitor editable (403); the site-wide rows apply to
// every monitor, so writing them needs an unrestricted scope (403).
import type { AuthUser } from '../../auth/auth-service.js';
import { canEdit, canSee, isUnrestricted, type MonitorScope } from '../../auth/monitor-acl.js';
import { ConflictError, InvalidInputError, PermissionDeniedError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { AI_Detection_Settings, Prisma } from '../../generated/prisma/client.js';
import { toBit, type ZeroOrOne, type ZeroOrOneFlag } from '../../db/row-flags.js';
import { AclDbService } from '../db-service.js';

export interface AiDetectionSettingResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /**
   * The monitor; null: the site-wide default for the class.
   * @isInt
   * @minimum 0
   */
  monitor_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   */
  object_class_id: number;
  enabled: ZeroOrOne;
  report_detection: ZeroOrOne;
  /**
   * Percent.
   * @isInt
   * @minimum 0
   * @maximum 100
   */
  confidence_threshold: number;
  /** `#RRGGBB` */
  box_color: string;
}

interface SettingFields {
  enabled?: null | ZeroOrOneFlag;
  report_detection?: null | ZeroOrOneFlag;
  /**
   * Minimum confidence, in percent, for a detection to count.
   * @isInt
   * @minimum 0
   * @maximum 100
   */
  confidence_threshold?: number | null;
  /**
   * Box colour, `#RRGGBB`.
   * @pattern ^#[0-9A-Fa-f]{6}$
   */
  box_color?: string | null;
}

export interface CreateAiDetectionSettingRequest extends SettingFields {
  /**
   * A monitor the caller may edit; null or omitted: the site-wide default (unrestricted callers only).
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  monitor_id?: number | null;
  /**
   * An existing AI object class.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  object_class_id: number;
}

export interface UpdateAiDetectionSettingRequest extends SettingFields {}

function toResponse(row: AI_Detection_Settings): AiDetectionSettingResponse {
  return {
    id: row.Id,
    monitor_id: row.MonitorId,
    object_class_id: row.ObjectClassId,
    enabled: row.Enabled ? 1 : 0,
    report_detection: row.ReportDetection ? 1 : 0,
    confidence_threshold: row.ConfidenceThreshold,
    box_color: row.BoxColor,
  };
}

function toData(body: SettingFields): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const enabled = toBit(body.enabled);
  if (enabled !== undefined) data.Enabled = enabled;
  const report = toBit(body.report_detection);
  if (report !== undefined) data.ReportDetection = report;
  if (body.confidence_threshold != null) data.ConfidenceThreshold = body.confidence_threshold;
  if (body.box_color != null) data.BoxColor = body.box_color.toUpperCase();
  return data;
}

export class AiDetectionSettingsService extends AclDbService {
  async list(
    user: AuthUser,
    monitorId: number | undefined,
    objectClassId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<Page<AiDetectionSettingResponse>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.scope(user);
    const where: Prisma.AI_Detection_SettingsWhereInput = {
      AND: [
        monitorId === undefined ? {} : { MonitorId: monitorId },
        objectClassId === undefined ? {} : { ObjectClassId: objectClassId },
        scope.visible === null ? {} : { OR: [{ MonitorId: null }, { MonitorId: { in: [...scope.visible] } }] },
      ],
    };
    return listPage(
      req,
      this.prisma.aI_Detection_Settings.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.aI_Detection_Settings.count({ where }),
      toResponse,
    );
  }

  /** May the caller write rows of this monitor (null: the site-wide rows)? 403 otherwise. */
  private requireWritable(scope: MonitorScope, monitorId: number | null): void {
    if (monitorId === null ? isUnrestricted(scope) : canEdit(scope, monitorId)) return;
    throw monitorId === null
      ? new PermissionDeniedError('Site-wide detection settings need an account without monitor restrictions', [
          ['monitor_id', 'null'],
        ])
      : new PermissionDeniedError(`Monitor ${monitorId} is view-only for this account`, [
          ['monitor_id', String(monitorId)],
        ]);
  }

  private async row(user: AuthUser, id: number, write: boolean): Promise<AI_Detection_Settings> {
    const scope = await this.acl.scope(user);
    const row = await this.prisma.aI_Detection_Settings.findUnique({ where: { Id: id } });
    if (!row || (row.MonitorId !== null && !canSee(scope, row.MonitorId))) {
      throw notFound('AI detection setting', id);
    }
    if (write) this.requireWritable(scope, row.MonitorId);
    return row;
  }

  async get(user: AuthUser, id: number): Promise<AiDetectionSettingResponse> {
    return toResponse(await this.row(user, id, false));
  }

  async create(user: AuthUser, body: CreateAiDetectionSettingRequest): Promise<AiDetectionSettingResponse> {
    const scope = await this.acl.scope(user);
    const monitorId = body.monitor_id ?? null;
    const [monitor, objectClass] = await Promise.all([
      monitorId === null || !canSee(scope, monitorId)
        ? null
        : this.prisma.monitors.findUnique({ where: { Id: monitorId }, select: { Id: true } }),
      this.prisma.aI_Object_Classes.findUnique({ where: { Id: body.object_class_id }, select: { Id: true } }),
    ]);
    const problems: Array<[string, string]> = [];
    if (monitorId !== null && !monitor) problems.push(['monitor_id', `unknown monitor ${monitorId}`]); // hidden reads as unknown
    if (!objectClass) problems.push(['object_class_id', `unknown object class ${body.object_class_id}`]);
    if (problems.length) throw new InvalidInputError('Invalid input', problems);
    this.requireWritable(scope, monitorId);
    // The unique index (MonitorId, ObjectClassId) does not cover NULLs, so the site-wide rows are checked here.
    if (
      monitorId === null &&
      (await this.prisma.aI_Detection_Settings.count({
        where: { MonitorId: null, ObjectClassId: body.object_class_id },
      }))
    ) {
      throw new ConflictError('A site-wide setting for this object class exists', [
        ['object_class_id', String(body.object_class_id)],
      ]);
    }
    const row = await this.prisma.aI_Detection_Settings.create({
      data: {
        ...toData(body),
        MonitorId: monitorId,
        ObjectClassId: body.object_class_id,
      } as Prisma.AI_Detection_SettingsUncheckedCreateInput,
    });
    return toResponse(row);
  }

  /** The monitor and class of a row are its identity; only the settings change. */
  async update(user: AuthUser, id: number, body: UpdateAiDetectionSettingRequest): Promise<AiDetectionSettingResponse> {
    await this.row(user, id, true);
    return toResponse(await this.prisma.aI_Detection_Settings.update({ where: { Id: id }, data: toData(body) }));
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.row(user, id, true);
    await this.prisma.aI_Detection_Settings.delete({ where: { Id: id } });
  }
}
