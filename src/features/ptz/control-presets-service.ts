// PTZ presets (ControlPresets), addressed by (MonitorId, Preset). Each row belongs to a monitor,
// so the monitor row ACL applies: presets of a hidden monitor are filtered from lists and read as
// 404 by address; writing needs the monitor to be editable (403 when only visible).
import { InvalidInputError, NotFoundError, PermissionDeniedError } from '../../errors.js';
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorScope } from '../../auth/monitor-acl.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { ControlPresets } from '../../generated/prisma/client.js';
import { AclDbService } from '../db-service.js';

export interface ControlPresetResponse {
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /**
   * @isInt
   * @minimum 0
   */
  preset: number;
  label: string;
}

export interface CreateControlPresetRequest {
  /**
   * An existing monitor the caller may edit.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  monitor_id: number;
  /**
   * Preset number, unique per monitor.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  preset: number;
  /**
   * Display label.
   * @maxLength 64
   */
  label: string;
}

export interface UpdateControlPresetRequest {
  /**
   * Display label.
   * @maxLength 64
   */
  label?: string | null;
}

function toResponse(row: ControlPresets): ControlPresetResponse {
  return { monitor_id: row.MonitorId, preset: row.Preset, label: row.Label };
}

const visible = (scope: MonitorScope, monitorId: number) => scope.visible === null || scope.visible.has(monitorId);
const editable = (scope: MonitorScope, monitorId: number) =>
  visible(scope, monitorId) && (scope.editable === null || scope.editable.has(monitorId));

export class ControlPresetsService extends AclDbService {
  async list(
    user: AuthUser,
    monitorId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<Page<ControlPresetResponse>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.scope(user);
    const ids = scope.visible === null ? undefined : [...scope.visible];
    const where = {
      AND: [
        monitorId === undefined ? {} : { MonitorId: monitorId },
        ids === undefined ? {} : { MonitorId: { in: ids } },
      ],
    };
    return listPage(
      req,
      this.prisma.controlPresets.findMany({
        where,
        orderBy: [{ MonitorId: 'asc' }, { Preset: 'asc' }],
        skip: req.skip,
        take: req.take,
      }),
      this.prisma.controlPresets.count({ where }),
      toResponse,
    );
  }

  private notFound(monitorId: number, preset: number): NotFoundError {
    return new NotFoundError(
      `Control preset ${preset} of monitor ${monitorId} not found`,
      [
        ['monitor_id', String(monitorId)],
        ['preset', String(preset)],
      ],
      'MESSAGE',
    );
  }

  /** The row, or 404 when it is missing or its monitor is hidden from the caller. */
  private async row(user: AuthUser, monitorId: number, preset: number, forWrite: boolean): Promise<ControlPresets> {
    const scope = await this.acl.scope(user);
    if (!visible(scope, monitorId)) throw this.notFound(monitorId, preset);
    const row = await this.prisma.controlPresets.findUnique({
      where: { MonitorId_Preset: { MonitorId: monitorId, Preset: preset } },
    });
    if (!row) throw this.notFound(monitorId, preset);
    if (forWrite && !editable(scope, monitorId)) {
      throw new PermissionDeniedError(`Monitor ${monitorId} is not editable for this account`, [
        ['monitor_id', String(monitorId)],
      ]);
    }
    return row;
  }

  async get(user: AuthUser, monitorId: number, preset: number): Promise<ControlPresetResponse> {
    return toResponse(await this.row(user, monitorId, preset, false));
  }

  /** The monitor must exist and be visible (400 otherwise, hidden reads as missing) and editable (403). */
  async create(user: AuthUser, body: CreateControlPresetRequest): Promise<ControlPresetResponse> {
    const scope = await this.acl.scope(user);
    const monitor = visible(scope, body.monitor_id)
      ? await this.prisma.monitors.findUnique({ where: { Id: body.monitor_id }, select: { Id: true } })
      : null;
    if (!monitor)
      throw new InvalidInputError(`Monitor ${body.monitor_id} does not exist`, [
        ['monitor_id', `no monitor with id ${body.monitor_id}`],
      ]);
    if (!editable(scope, body.monitor_id)) {
      throw new PermissionDeniedError(`Monitor ${body.monitor_id} is not editable for this account`, [
        ['monitor_id', String(body.monitor_id)],
      ]);
    }
    const row = await this.prisma.controlPresets.create({
      data: { MonitorId: body.monitor_id, Preset: body.preset, Label: body.label },
    });
    return toResponse(row);
  }

  async update(
    user: AuthUser,
    monitorId: number,
    preset: number,
    body: UpdateControlPresetRequest,
  ): Promise<ControlPresetResponse> {
    const row = await this.row(user, monitorId, preset, true);
    if (body.label == null) return toResponse(row);
    const updated = await this.prisma.controlPresets.update({
      where: { MonitorId_Preset: { MonitorId: monitorId, Preset: preset } },
      data: { Label: body.label },
    });
    return toResponse(updated);
  }

  async remove(user: AuthUser, monitorId: number, preset: number): Promise<void> {
    await this.row(user, monitorId, preset, true);
    await this.prisma.controlPresets.delete({ where: { MonitorId_Preset: { MonitorId: monitorId, Preset: preset } } });
  }
}
