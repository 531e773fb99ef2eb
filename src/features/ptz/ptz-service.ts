// PTZ through ZoneMinder's own control daemon: every command becomes one JSON message on the
// monitor's zmcontrol.pl socket (docs/zoneminder/ptz.md), named as ZoneMinder's web UI names them
// (`<verb><Mode><Dir>`, Mode = Con, else Rel, else Abs, as the profile allows), with speeds and
// steps mapped into the profile's ranges (ptz-capabilities.ts).
//
// Order of checks on every monitor route: feature (Control; reads View, commands Edit, by the
// route's method) → row ACL (hidden: 404; commands on a view-only monitor: 403, moving a camera
// changes state) → monitor exists (404) → the monitor is controllable with a control profile
// (400, the reference client reads 400 as "not PTZ") → the capability (400 naming it, e.g.
// can_tilt) → request values (400) → the socket (503 when zmcontrol.pl is not running).
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { BadRequestError, InvalidInputError } from '../../errors.js';
import {
  axisSpeed,
  axisStep,
  capabilitiesOf,
  type PtzCapabilities,
  type PtzCapabilitiesResponse,
} from './ptz-capabilities.js';
import { PtzSender, type PtzCommandResponse } from './ptz-sender.js';
import { modeFor, need, option, presetInRange, ptzTarget } from './ptz-target.js';
import { ZmControlClient, type ControlMessage } from './zmcontrol-client.js';
import type { Services } from '../../registry.js';

export type { PtzCommandResponse } from './ptz-sender.js';

export interface PtzMoveRequest {
  /**
   * Pan speed in the control profile's own units (MinPanSpeed..MaxPanSpeed). Omitted: the middle
   * of the range; below it: the minimum; above it: the turbo speed when the profile has one.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  pan_speed?: number | null;
  /**
   * Tilt speed in the profile's units (MinTiltSpeed..MaxTiltSpeed), mapped like pan_speed.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  tilt_speed?: number | null;
  /**
   * Continuous moves only: send the stop after this many milliseconds. 0 or omitted: keep moving
   * until move/stop (or the monitor's AutoStopTimeout).
   * @isInt
   * @minimum 0
   * @maximum 60000
   */
  duration_ms?: number | null;
}

export interface PtzZoomRequest {
  /**
   * Zoom speed in the profile's units (MinZoomSpeed..MaxZoomSpeed), mapped like pan_speed.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  speed?: number | null;
  /**
   * Continuous zoom only: send zoomStop after this many milliseconds.
   * @isInt
   * @minimum 0
   * @maximum 60000
   */
  duration_ms?: number | null;
}

export interface PtzFocusRequest {
  /**
   * Focus speed in the profile's units (MinFocusSpeed..MaxFocusSpeed), mapped like pan_speed.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  speed?: number | null;
  /**
   * Continuous focus only: send focusStop after this many milliseconds.
   * @isInt
   * @minimum 0
   * @maximum 60000
   */
  duration_ms?: number | null;
}

export interface PtzPresetRequest {
  /**
   * Label kept in ControlPresets. Omitted or null: the label is left as it is; empty: removed.
   * @maxLength 64
   */
  name?: string | null;
}

/** Steps in the profile's units (Min..Max<Axis>Step); the sign gives the direction. */
export interface PtzRelativeRequest {
  /**
   * Pan step; positive moves right.
   * @minimum -1000000
   * @maximum 1000000
   */
  pan_delta?: number | null;
  /**
   * Tilt step; positive moves up.
   * @minimum -1000000
   * @maximum 1000000
   */
  tilt_delta?: number | null;
  /**
   * Zoom step; positive zooms in (tele).
   * @minimum -1000000
   * @maximum 1000000
   */
  zoom_delta?: number | null;
}

/** Passed to zmcontrol.pl's moveMap as xcoord/ycoord; their meaning is the protocol module's. */
export interface PtzAbsoluteRequest {
  /**
   * Pan position (ONVIF: −1..1 in the generic space; most other modules: an image x).
   * @minimum -1000000
   * @maximum 1000000
   */
  pan?: number | null;
  /**
   * Tilt position (ONVIF: −1..1; most other modules: an image y).
   * @minimum -1000000
   * @maximum 1000000
   */
  tilt?: number | null;
  /** Not supported: no zmcontrol.pl command sets an absolute zoom (400). */
  zoom?: number | null;
}

export interface PtzPositionResponse {
  pan?: number | null;
  tilt?: number | null;
  zoom?: number | null;
}

export interface PtzStatusResponse {
  /** zmcontrol.pl accepts connections on the monitor's control socket. */
  available: boolean;
  capabilities: PtzCapabilities;
  /** Always false: every protocol is driven through zmcontrol.pl. */
  is_native: boolean;
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /** zmcontrol.pl reports no positions, so this is null. */
  position?: PtzPositionResponse | null;
  protocol?: string | null;
}

export interface PtzProtocolInfo {
  name: string;
  description?: string | null;
  is_native: boolean;
}

export interface PtzProtocolListResponse {
  protocols: PtzProtocolInfo[];
  /** Protocols zmgate drives without zmcontrol.pl: none. */
  native_protocols: string[];
  /** Every protocol goes through zmcontrol.pl. */
  perl_fallback_enabled: boolean;
}

export type MoveDirection = 'up' | 'down' | 'left' | 'right' | 'up-left' | 'up-right' | 'down-left' | 'down-right';
export type ZoomDirection = 'in' | 'out';
export type FocusDirection = 'near' | 'far';
export type IrisDirection = 'open' | 'close';
export type PowerAction = 'wake' | 'sleep' | 'reset' | 'reboot';

const MOVES: Record<MoveDirection, { name: string; pan: boolean; tilt: boolean }> = {
  up: { name: 'Up', pan: false, tilt: true },
  down: { name: 'Down', pan: false, tilt: true },
  left: { name: 'Left', pan: true, tilt: false },
  right: { name: 'Right', pan: true, tilt: false },
  'up-left': { name: 'UpLeft', pan: true, tilt: true },
  'up-right': { name: 'UpRight', pan: true, tilt: true },
  'down-left': { name: 'DownLeft', pan: true, tilt: true },
  'down-right': { name: 'DownRight', pan: true, tilt: true },
};

const POWER: Record<PowerAction, string> = {
  wake: 'CanWake',
  sleep: 'CanSleep',
  reset: 'CanReset',
  reboot: 'CanReboot',
};

export class PtzService {
  /** Built once per app by the registry (Services.get): one control client, so commands to a socket stay in order. */
  static from(s: Services): PtzService {
    return new PtzService(s.prisma, s.acl, new PtzSender(new ZmControlClient(s.config.zoneminder.path_socks), s.log));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly sender: PtzSender,
  ) {}

  // ------------------------------------------------------------------ reads

  /** The protocols of the control profiles in the database; all are driven by zmcontrol.pl. */
  async protocols(): Promise<PtzProtocolListResponse> {
    const rows = await this.prisma.controls.groupBy({
      by: ['Protocol'],
      _count: { _all: true },
      orderBy: { Protocol: 'asc' },
    });
    const protocols = rows
      .filter((r): r is typeof r & { Protocol: string } => typeof r.Protocol === 'string' && r.Protocol.trim() !== '')
      .map((r) => ({
        name: r.Protocol,
        description: `ZoneMinder::Control::${r.Protocol} through zmcontrol.pl (${r._count._all} control profile(s))`,
        is_native: false,
      }));
    return { protocols, native_protocols: [], perl_fallback_enabled: true };
  }

  async capabilities(user: AuthUser, monitorId: number): Promise<PtzCapabilitiesResponse> {
    return capabilitiesOf((await ptzTarget(this.prisma, this.acl, user, monitorId, false)).control);
  }

  async status(user: AuthUser, monitorId: number): Promise<PtzStatusResponse> {
    const { control } = await ptzTarget(this.prisma, this.acl, user, monitorId, false);
    return {
      available: await this.sender.probe(monitorId),
      capabilities: capabilitiesOf(control),
      is_native: false,
      monitor_id: monitorId,
      position: null,
      protocol: control.Protocol ?? null,
    };
  }

  // ------------------------------------------------------------------ pan / tilt

  async move(
    user: AuthUser,
    monitorId: number,
    direction: MoveDirection,
    body: PtzMoveRequest = {},
  ): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    const dir = MOVES[direction];
    need(t, 'CanMove');
    if (dir.pan) need(t, 'CanPan');
    if (dir.tilt) need(t, 'CanTilt');
    if (dir.pan && dir.tilt) need(t, 'CanMoveDiag');
    const mode = modeFor(t, 'Move');
    const message: ControlMessage = { command: `move${mode}${dir.name}` };
    if (dir.pan) option(message, 'panspeed', axisSpeed(t.control, 'Pan', body.pan_speed));
    if (dir.tilt) option(message, 'tiltspeed', axisSpeed(t.control, 'Tilt', body.tilt_speed));
    if (mode !== 'Con') {
      if (dir.pan) message.panstep = String(axisStep(t.control, 'Pan'));
      if (dir.tilt) message.tiltstep = String(axisStep(t.control, 'Tilt'));
    }
    return this.sender.continuous(t, mode, message, 'moveStop', body.duration_ms);
  }

  async moveStop(user: AuthUser, monitorId: number): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, 'CanMove');
    return this.sender.run(t, [{ command: 'moveStop' }]);
  }

  /** Relative steps: moveRel<Dir> with panstep/tiltstep, zoomRelTele/Wide with step. */
  async relative(user: AuthUser, monitorId: number, body: PtzRelativeRequest): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    const pan = Math.round(body.pan_delta ?? 0);
    const tilt = Math.round(body.tilt_delta ?? 0);
    const zoom = Math.round(body.zoom_delta ?? 0);
    if (pan === 0 && tilt === 0 && zoom === 0) {
      const why = 'one of pan_delta, tilt_delta, zoom_delta must round to a non-zero step';
      throw new InvalidInputError('Nothing to move', [
        ['pan_delta', why],
        ['tilt_delta', why],
        ['zoom_delta', why],
      ]);
    }
    const messages: ControlMessage[] = [];
    if (pan !== 0 || tilt !== 0) {
      need(t, 'CanMove');
      need(t, 'CanMoveRel');
      if (pan !== 0) need(t, 'CanPan');
      if (tilt !== 0) need(t, 'CanTilt');
      if (pan !== 0 && tilt !== 0) need(t, 'CanMoveDiag');
      const name = `${tilt > 0 ? 'Up' : tilt < 0 ? 'Down' : ''}${pan > 0 ? 'Right' : pan < 0 ? 'Left' : ''}`;
      const message: ControlMessage = { command: `moveRel${name}` };
      if (pan !== 0) {
        message.panstep = String(axisStep(t.control, 'Pan', Math.abs(pan)));
        option(message, 'panspeed', axisSpeed(t.control, 'Pan', undefined));
      }
      if (tilt !== 0) {
        message.tiltstep = String(axisStep(t.control, 'Tilt', Math.abs(tilt)));
        option(message, 'tiltspeed', axisSpeed(t.control, 'Tilt', undefined));
      }
      messages.push(message);
    }
    if (zoom !== 0) {
      need(t, 'CanZoom');
      need(t, 'CanZoomRel');
      messages.push({
        command: zoom > 0 ? 'zoomRelTele' : 'zoomRelWide',
        step: String(axisStep(t.control, 'Zoom', Math.abs(zoom))),
      });
    }
    return this.sender.run(t, messages);
  }

  /** An absolute pan/tilt position through moveMap (the one zmcontrol.pl command taking coordinates). */
  async absolute(user: AuthUser, monitorId: number, body: PtzAbsoluteRequest): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    if (body.zoom != null) {
      throw new BadRequestError('Absolute zoom is not available through zmcontrol.pl', [
        ['zoom', 'no zmcontrol.pl command sets an absolute zoom'],
      ]);
    }
    const missing = (['pan', 'tilt'] as const).filter((k) => body[k] == null);
    if (missing.length)
      throw new InvalidInputError(
        'pan and tilt are both required',
        missing.map((k) => [k, 'required with an absolute move']),
      );
    need(t, 'CanMove');
    need(t, 'CanMoveMap');
    return this.sender.run(t, [{ command: 'moveMap', xcoord: String(body.pan), ycoord: String(body.tilt) }]);
  }

  // ------------------------------------------------------------------ zoom / focus / iris

  zoom(
    user: AuthUser,
    monitorId: number,
    direction: ZoomDirection,
    body: PtzZoomRequest = {},
  ): Promise<PtzCommandResponse> {
    return this.lens(user, monitorId, 'Zoom', direction === 'in' ? 'Tele' : 'Wide', body.speed, body.duration_ms);
  }

  focus(
    user: AuthUser,
    monitorId: number,
    direction: FocusDirection,
    body: PtzFocusRequest = {},
  ): Promise<PtzCommandResponse> {
    return this.lens(user, monitorId, 'Focus', direction === 'near' ? 'Near' : 'Far', body.speed, body.duration_ms);
  }

  iris(user: AuthUser, monitorId: number, direction: IrisDirection): Promise<PtzCommandResponse> {
    return this.lens(user, monitorId, 'Iris', direction === 'open' ? 'Open' : 'Close', undefined, undefined);
  }

  /** zoomStop, focusStop, irisStop. */
  async lensStop(user: AuthUser, monitorId: number, axis: 'Zoom' | 'Focus' | 'Iris'): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, `Can${axis}`);
    return this.sender.run(t, [{ command: `${axis.toLowerCase()}Stop` }]);
  }

  /** focusAuto, irisAuto. */
  async lensAuto(user: AuthUser, monitorId: number, axis: 'Focus' | 'Iris'): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, `CanAuto${axis}`);
    return this.sender.run(t, [{ command: `${axis.toLowerCase()}Auto` }]);
  }

  private async lens(
    user: AuthUser,
    monitorId: number,
    axis: 'Zoom' | 'Focus' | 'Iris',
    dir: string,
    speed: number | null | undefined,
    durationMs: number | null | undefined,
  ): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, `Can${axis}`);
    const mode = modeFor(t, axis);
    const message: ControlMessage = { command: `${axis.toLowerCase()}${mode}${dir}` };
    option(message, 'speed', axisSpeed(t.control, axis, speed));
    if (mode !== 'Con') message.step = String(axisStep(t.control, axis));
    return this.sender.continuous(t, mode, message, `${axis.toLowerCase()}Stop`, durationMs);
  }

  // ------------------------------------------------------------------ power, presets

  async power(user: AuthUser, monitorId: number, action: PowerAction): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, POWER[action]);
    return this.sender.run(t, [{ command: action }]);
  }

  async home(user: AuthUser, monitorId: number): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, 'HasHomePreset');
    return this.sender.run(t, [{ command: 'presetHome' }]);
  }

  async presetGoto(user: AuthUser, monitorId: number, preset: number): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, 'HasPresets');
    presetInRange(t, preset);
    return this.sender.run(t, [{ command: 'presetGoto', preset: String(preset) }]);
  }

  /**
   * Stores the camera's position as preset N, then keeps the ControlPresets label in step as the
   * web UI does: a name replaces the label, an empty name removes it, no name leaves it alone.
   * The label is written only after the command reached zmcontrol.pl.
   */
  async presetSet(
    user: AuthUser,
    monitorId: number,
    preset: number,
    body: PtzPresetRequest = {},
  ): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, 'CanSetPresets');
    presetInRange(t, preset);
    const result = await this.sender.run(t, [{ command: 'presetSet', preset: String(preset) }]);
    const key = { MonitorId_Preset: { MonitorId: monitorId, Preset: preset } };
    if (body.name === '') {
      await this.prisma.controlPresets.deleteMany({ where: { MonitorId: monitorId, Preset: preset } });
    } else if (body.name != null) {
      await this.prisma.controlPresets.upsert({
        where: key,
        create: { MonitorId: monitorId, Preset: preset, Label: body.name },
        update: { Label: body.name },
      });
    }
    return result;
  }

  /** Clears preset N in the camera and removes its label. */
  async presetClear(user: AuthUser, monitorId: number, preset: number): Promise<PtzCommandResponse> {
    const t = await ptzTarget(this.prisma, this.acl, user, monitorId, true);
    need(t, 'CanSetPresets');
    presetInRange(t, preset);
    const result = await this.sender.run(t, [{ command: 'presetClear', preset: String(preset) }]);
    await this.prisma.controlPresets.deleteMany({ where: { MonitorId: monitorId, Preset: preset } });
    return result;
  }

  // ------------------------------------------------------------------ plumbing
}
