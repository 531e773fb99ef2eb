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
import {
  monitorNotFound,
  requireEditableMonitor,
  requireVisibleMonitor,
  type MonitorAcl,
} from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { BadRequestError, InvalidInputError, ServiceUnavailableError } from '../../errors.js';
import type { Logger } from '../../log.js';
import {
  axisSpeed,
  axisStep,
  capabilitiesOf,
  capabilityName,
  flag,
  cell,
  type ControlRow,
  type PtzCapabilities,
  type PtzCapabilitiesResponse,
} from './ptz-capabilities.js';
import { ControlSocketError, ZmControlClient, type ControlMessage } from './zmcontrol-client.js';
import type { Services } from '../../registry.js';

export interface PtzCommandResponse {
  success: boolean;
  /** What was sent, e.g. `moveConUp (tiltspeed 32)`. */
  message: string;
}

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

type Mode = 'Con' | 'Rel' | 'Abs';

interface Target {
  monitorId: number;
  control: ControlRow;
  /** Monitors.AutoStopTimeout is set: continuous commands carry `autostop` as the web UI does. */
  autoStop: boolean;
}

/** A scheduled stop (duration_ms) runs after the response, so its failure can only be logged. */
interface PendingStop {
  monitorId: number;
  command: string;
  afterMs: number;
}

/** `moveConUp (tiltspeed 32, autostop 1)` */
function describe(message: ControlMessage): string {
  const { command, ...options } = message;
  const parts = Object.entries(options).map(([k, v]) => `${k} ${v}`);
  return parts.length ? `${command} (${parts.join(', ')})` : command;
}

export class PtzService {
  /** Built once per app by the registry (Services.get): one control client, so commands to a socket stay in order. */
  static from(s: Services): PtzService {
    return new PtzService(s.prisma, s.acl, new ZmControlClient(s.config.zoneminder.path_socks), s.log);
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly zmcontrol: ZmControlClient,
    private readonly log: Logger,
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
    return capabilitiesOf((await this.target(user, monitorId, false)).control);
  }

  async status(user: AuthUser, monitorId: number): Promise<PtzStatusResponse> {
    const { control } = await this.target(user, monitorId, false);
    return {
      available: await this.zmcontrol.probe(monitorId),
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
    const t = await this.target(user, monitorId, true);
    const dir = MOVES[direction];
    this.need(t, 'CanMove');
    if (dir.pan) this.need(t, 'CanPan');
    if (dir.tilt) this.need(t, 'CanTilt');
    if (dir.pan && dir.tilt) this.need(t, 'CanMoveDiag');
    const mode = this.mode(t, 'Move');
    const message: ControlMessage = { command: `move${mode}${dir.name}` };
    if (dir.pan) this.option(message, 'panspeed', axisSpeed(t.control, 'Pan', body.pan_speed));
    if (dir.tilt) this.option(message, 'tiltspeed', axisSpeed(t.control, 'Tilt', body.tilt_speed));
    if (mode !== 'Con') {
      if (dir.pan) message.panstep = String(axisStep(t.control, 'Pan'));
      if (dir.tilt) message.tiltstep = String(axisStep(t.control, 'Tilt'));
    }
    return this.continuous(t, mode, message, 'moveStop', body.duration_ms);
  }

  async moveStop(user: AuthUser, monitorId: number): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
    this.need(t, 'CanMove');
    return this.run(t, [{ command: 'moveStop' }]);
  }

  /** Relative steps: moveRel<Dir> with panstep/tiltstep, zoomRelTele/Wide with step. */
  async relative(user: AuthUser, monitorId: number, body: PtzRelativeRequest): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
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
      this.need(t, 'CanMove');
      this.need(t, 'CanMoveRel');
      if (pan !== 0) this.need(t, 'CanPan');
      if (tilt !== 0) this.need(t, 'CanTilt');
      if (pan !== 0 && tilt !== 0) this.need(t, 'CanMoveDiag');
      const name = `${tilt > 0 ? 'Up' : tilt < 0 ? 'Down' : ''}${pan > 0 ? 'Right' : pan < 0 ? 'Left' : ''}`;
      const message: ControlMessage = { command: `moveRel${name}` };
      if (pan !== 0) {
        message.panstep = String(axisStep(t.control, 'Pan', Math.abs(pan)));
        this.option(message, 'panspeed', axisSpeed(t.control, 'Pan', undefined));
      }
      if (tilt !== 0) {
        message.tiltstep = String(axisStep(t.control, 'Tilt', Math.abs(tilt)));
        this.option(message, 'tiltspeed', axisSpeed(t.control, 'Tilt', undefined));
      }
      messages.push(message);
    }
    if (zoom !== 0) {
      this.need(t, 'CanZoom');
      this.need(t, 'CanZoomRel');
      messages.push({
        command: zoom > 0 ? 'zoomRelTele' : 'zoomRelWide',
        step: String(axisStep(t.control, 'Zoom', Math.abs(zoom))),
      });
    }
    return this.run(t, messages);
  }

  /** An absolute pan/tilt position through moveMap (the one zmcontrol.pl command taking coordinates). */
  async absolute(user: AuthUser, monitorId: number, body: PtzAbsoluteRequest): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
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
    this.need(t, 'CanMove');
    this.need(t, 'CanMoveMap');
    return this.run(t, [{ command: 'moveMap', xcoord: String(body.pan), ycoord: String(body.tilt) }]);
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
    const t = await this.target(user, monitorId, true);
    this.need(t, `Can${axis}`);
    return this.run(t, [{ command: `${axis.toLowerCase()}Stop` }]);
  }

  /** focusAuto, irisAuto. */
  async lensAuto(user: AuthUser, monitorId: number, axis: 'Focus' | 'Iris'): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
    this.need(t, `CanAuto${axis}`);
    return this.run(t, [{ command: `${axis.toLowerCase()}Auto` }]);
  }

  private async lens(
    user: AuthUser,
    monitorId: number,
    axis: 'Zoom' | 'Focus' | 'Iris',
    dir: string,
    speed: number | null | undefined,
    durationMs: number | null | undefined,
  ): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
    this.need(t, `Can${axis}`);
    const mode = this.mode(t, axis);
    const message: ControlMessage = { command: `${axis.toLowerCase()}${mode}${dir}` };
    this.option(message, 'speed', axisSpeed(t.control, axis, speed));
    if (mode !== 'Con') message.step = String(axisStep(t.control, axis));
    return this.continuous(t, mode, message, `${axis.toLowerCase()}Stop`, durationMs);
  }

  // ------------------------------------------------------------------ power, presets

  async power(user: AuthUser, monitorId: number, action: PowerAction): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
    this.need(t, POWER[action]);
    return this.run(t, [{ command: action }]);
  }

  async home(user: AuthUser, monitorId: number): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
    this.need(t, 'HasHomePreset');
    return this.run(t, [{ command: 'presetHome' }]);
  }

  async presetGoto(user: AuthUser, monitorId: number, preset: number): Promise<PtzCommandResponse> {
    const t = await this.target(user, monitorId, true);
    this.need(t, 'HasPresets');
    this.presetInRange(t, preset);
    return this.run(t, [{ command: 'presetGoto', preset: String(preset) }]);
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
    const t = await this.target(user, monitorId, true);
    this.need(t, 'CanSetPresets');
    this.presetInRange(t, preset);
    const result = await this.run(t, [{ command: 'presetSet', preset: String(preset) }]);
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
    const t = await this.target(user, monitorId, true);
    this.need(t, 'CanSetPresets');
    this.presetInRange(t, preset);
    const result = await this.run(t, [{ command: 'presetClear', preset: String(preset) }]);
    await this.prisma.controlPresets.deleteMany({ where: { MonitorId: monitorId, Preset: preset } });
    return result;
  }

  // ------------------------------------------------------------------ plumbing

  /** The monitor and its control profile, after the row ACL (`write`: the monitor must be editable). */
  private async target(user: AuthUser, monitorId: number, write: boolean): Promise<Target> {
    const scope = await this.acl.scope(user);
    if (write) requireEditableMonitor(scope, monitorId);
    else requireVisibleMonitor(scope, monitorId);
    const monitor = await this.prisma.monitors.findUnique({
      where: { Id: monitorId },
      select: { Id: true, Controllable: true, ControlId: true, AutoStopTimeout: true },
    });
    if (!monitor) throw monitorNotFound(monitorId);
    const details: Array<[string, string]> = [['monitor_id', String(monitorId)]];
    if (!monitor.Controllable || !monitor.ControlId) {
      throw new BadRequestError(`Monitor ${monitorId} has no PTZ control configured`, [
        ...details,
        ['reason', 'no PTZ control configured'],
      ]);
    }
    const control = await this.prisma.controls.findUnique({ where: { Id: monitor.ControlId } });
    if (!control) {
      throw new BadRequestError(`Monitor ${monitorId} has no PTZ control configured`, [
        ...details,
        ['reason', `control profile ${monitor.ControlId} does not exist`],
      ]);
    }
    return { monitorId, control, autoStop: monitor.AutoStopTimeout !== null && Number(monitor.AutoStopTimeout) > 0 };
  }

  /** 400 naming the capability (as /controls names it) when the profile lacks it. */
  private need(t: Target, column: string): void {
    if (flag(t.control, column)) return;
    const capability = capabilityName(column);
    throw new BadRequestError(`The control profile of monitor ${t.monitorId} lacks ${capability}`, [
      ['capability', capability],
      ['monitor_id', String(t.monitorId)],
      ['control_id', String(t.control.Id)],
    ]);
  }

  /** Continuous if the profile can, else relative, else absolute steps (ZoneMinder's web UI order). */
  private mode(t: Target, axis: string): Mode {
    for (const mode of ['Con', 'Rel', 'Abs'] as const) if (flag(t.control, `Can${axis}${mode}`)) return mode;
    this.need(t, `Can${axis}Con`);
    throw new Error('unreachable');
  }

  private option(message: ControlMessage, name: string, value: number | undefined): void {
    // zmcontrol.pl's own client and the PHP UI send option values as strings ("32").
    if (value !== undefined) message[name] = String(value);
  }

  private presetInRange(t: Target, preset: number): void {
    const count = cell(t.control, 'NumPresets') ?? 0;
    if (preset < 1 || (count > 0 && preset > count)) {
      const range = count > 0 ? `1..${count}` : '>= 1';
      throw new InvalidInputError(`Preset ${preset} is out of range`, [
        ['preset_id', `presets of this control profile are numbered ${range}`],
      ]);
    }
  }

  /** A continuous command with an optional timed stop; autostop as the web UI adds it. */
  private async continuous(
    t: Target,
    mode: Mode,
    message: ControlMessage,
    stopCommand: string,
    durationMs: number | null | undefined,
  ): Promise<PtzCommandResponse> {
    const timed = mode === 'Con' && !!durationMs;
    if (mode === 'Con' && !timed && t.autoStop) message.autostop = 1;
    const result = await this.run(t, [message]);
    if (!timed) return result;
    this.scheduleStop({ monitorId: t.monitorId, command: stopCommand, afterMs: durationMs });
    return { success: true, message: `${result.message}; ${stopCommand} in ${durationMs} ms` };
  }

  private scheduleStop(stop: PendingStop): void {
    const timer = setTimeout(() => {
      this.zmcontrol.send(stop.monitorId, { command: stop.command }).catch((err: unknown) => {
        const reason = err instanceof ControlSocketError ? err.reason : String(err);
        this.log.warn(
          { monitor_id: stop.monitorId, command: stop.command, reason },
          'scheduled PTZ stop not delivered',
        );
      });
    }, stop.afterMs);
    timer.unref();
  }

  /** Sends the messages in order; an unreachable daemon is a 503 naming zmcontrol.pl. */
  private async run(t: Target, messages: ControlMessage[]): Promise<PtzCommandResponse> {
    for (const message of messages) {
      try {
        await this.zmcontrol.send(t.monitorId, message);
      } catch (err) {
        if (!(err instanceof ControlSocketError)) throw err;
        this.log.warn(
          { monitor_id: t.monitorId, command: message.command, reason: err.reason },
          'PTZ command not delivered',
        );
        throw new ServiceUnavailableError(this.unavailable(t.monitorId, err), [
          ['monitor_id', String(t.monitorId)],
          ['daemon', 'zmcontrol.pl'],
          ['reason', err.reason],
        ]);
      }
    }
    return { success: true, message: `Sent ${messages.map(describe).join('; ')} to monitor ${t.monitorId}` };
  }

  private unavailable(monitorId: number, err: ControlSocketError): string {
    switch (err.reason) {
      case 'permission denied':
        return `zmgate may not use the PTZ control socket of monitor ${monitorId}: run it as the ZoneMinder user or in its group`;
      case 'timeout':
        return `The PTZ control daemon (zmcontrol.pl) of monitor ${monitorId} is not responding`;
      default:
        return `The PTZ control daemon (zmcontrol.pl) is not running for monitor ${monitorId}`;
    }
  }
}
