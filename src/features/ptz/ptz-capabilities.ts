// What a monitor's camera can do, read from its Controls row (Monitors.ControlId → Controls),
// in the reference's PtzCapabilities shape. Also the speed/step arithmetic that maps a request
// into the profile's own ranges.
import type { Controls } from '../../generated/prisma/client.js';

export interface AxisRange {
  /** @isInt */
  min?: number | null;
  /** @isInt */
  max?: number | null;
}

export interface AxisSpeed {
  has_speed: boolean;
  /** @isInt */
  min?: number | null;
  /** @isInt */
  max?: number | null;
}

export interface AxisStep {
  /** @isInt */
  min?: number | null;
  /** @isInt */
  max?: number | null;
}

export interface TurboSpeed {
  has_turbo: boolean;
  /** @isInt */
  speed?: number | null;
}

/** One of zoom, focus, iris, gain, white balance. */
export interface AxisCapabilities {
  can: boolean;
  can_abs: boolean;
  can_auto: boolean;
  can_con: boolean;
  can_rel: boolean;
  range: AxisRange;
  speed: AxisSpeed;
  step: AxisStep;
}

export interface PanTiltCapabilities {
  can_move: boolean;
  can_move_abs: boolean;
  can_move_con: boolean;
  can_move_diag: boolean;
  can_move_map: boolean;
  can_move_rel: boolean;
  can_pan: boolean;
  can_tilt: boolean;
  pan_range: AxisRange;
  pan_speed: AxisSpeed;
  pan_step: AxisStep;
  pan_turbo: TurboSpeed;
  tilt_range: AxisRange;
  tilt_speed: AxisSpeed;
  tilt_step: AxisStep;
  tilt_turbo: TurboSpeed;
}

export interface PresetCapabilities {
  can_set_presets: boolean;
  has_home_preset: boolean;
  has_presets: boolean;
  /**
   * @isInt
   * @minimum 0
   */
  num_presets: number;
}

export interface PowerCapabilities {
  can_reboot: boolean;
  can_reset: boolean;
  can_sleep: boolean;
  can_wake: boolean;
}

export interface ScanCapabilities {
  can_auto_scan: boolean;
  /**
   * @isInt
   * @minimum 0
   */
  num_scan_paths: number;
}

export interface PtzCapabilities {
  /**
   * The Controls row (control profile) of the monitor.
   * @isInt
   * @minimum 0
   */
  control_id: number;
  name: string;
  /** The ZoneMinder::Control module zmcontrol.pl loads, e.g. ONVIF or PelcoD. */
  protocol?: string | null;
  pan_tilt: PanTiltCapabilities;
  zoom: AxisCapabilities;
  focus: AxisCapabilities;
  iris: AxisCapabilities;
  gain: AxisCapabilities;
  white_balance: AxisCapabilities;
  presets: PresetCapabilities;
  power: PowerCapabilities;
  scan: ScanCapabilities;
}

export interface PtzCapabilitiesResponse extends PtzCapabilities {}

/** The Controls columns by name (the generated type has no index signature). */
export type ControlRow = Controls;
type Cells = Record<string, number | null | string>;

export function cell(row: ControlRow, column: string): number | null {
  const v = (row as unknown as Cells)[column];
  return typeof v === 'number' ? v : null;
}

export const flag = (row: ControlRow, column: string): boolean => (cell(row, column) ?? 0) !== 0;

/** CanAutoFocus → can_auto_focus: the field name /controls uses, so errors name a known field. */
export const capabilityName = (column: string): string => column.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

const range = (row: ControlRow, axis: string, what: 'Range' | 'Step'): AxisRange => ({
  min: cell(row, `Min${axis}${what}`),
  max: cell(row, `Max${axis}${what}`),
});

const speed = (row: ControlRow, axis: string): AxisSpeed => ({
  has_speed: flag(row, `Has${axis}Speed`),
  min: cell(row, `Min${axis}Speed`),
  max: cell(row, `Max${axis}Speed`),
});

function axis(row: ControlRow, name: string): AxisCapabilities {
  return {
    can: flag(row, `Can${name}`),
    can_abs: flag(row, `Can${name}Abs`),
    can_auto: flag(row, `CanAuto${name}`),
    can_con: flag(row, `Can${name}Con`),
    can_rel: flag(row, `Can${name}Rel`),
    range: range(row, name, 'Range'),
    speed: speed(row, name),
    step: range(row, name, 'Step'),
  };
}

export function capabilitiesOf(row: ControlRow): PtzCapabilities {
  return {
    control_id: row.Id,
    name: row.Name,
    protocol: row.Protocol ?? null,
    pan_tilt: {
      can_move: flag(row, 'CanMove'),
      can_move_abs: flag(row, 'CanMoveAbs'),
      can_move_con: flag(row, 'CanMoveCon'),
      can_move_diag: flag(row, 'CanMoveDiag'),
      can_move_map: flag(row, 'CanMoveMap'),
      can_move_rel: flag(row, 'CanMoveRel'),
      can_pan: flag(row, 'CanPan'),
      can_tilt: flag(row, 'CanTilt'),
      pan_range: range(row, 'Pan', 'Range'),
      pan_speed: speed(row, 'Pan'),
      pan_step: range(row, 'Pan', 'Step'),
      pan_turbo: { has_turbo: flag(row, 'HasTurboPan'), speed: cell(row, 'TurboPanSpeed') },
      tilt_range: range(row, 'Tilt', 'Range'),
      tilt_speed: speed(row, 'Tilt'),
      tilt_step: range(row, 'Tilt', 'Step'),
      tilt_turbo: { has_turbo: flag(row, 'HasTurboTilt'), speed: cell(row, 'TurboTiltSpeed') },
    },
    zoom: axis(row, 'Zoom'),
    focus: axis(row, 'Focus'),
    iris: axis(row, 'Iris'),
    gain: axis(row, 'Gain'),
    white_balance: axis(row, 'White'),
    presets: {
      can_set_presets: flag(row, 'CanSetPresets'),
      has_home_preset: flag(row, 'HasHomePreset'),
      has_presets: flag(row, 'HasPresets'),
      num_presets: cell(row, 'NumPresets') ?? 0,
    },
    power: {
      can_reboot: flag(row, 'CanReboot'),
      can_reset: flag(row, 'CanReset'),
      can_sleep: flag(row, 'CanSleep'),
      can_wake: flag(row, 'CanWake'),
    },
    scan: { can_auto_scan: flag(row, 'CanAutoScan'), num_scan_paths: cell(row, 'NumScanPaths') ?? 0 },
  };
}

/**
 * The speed to send for one axis, in the profile's own units (what zmcontrol.pl modules expect):
 * - the profile has no speed control (Has<Axis>Speed = 0): none is sent;
 * - no usable Min..Max range: the request is passed through as is (or none is sent);
 * - omitted: the middle of Min..Max;
 * - below Min: Min; above Max: the turbo speed when the profile has one, else Max.
 */
export function axisSpeed(row: ControlRow, axisName: string, requested: number | null | undefined): number | undefined {
  if (!flag(row, `Has${axisName}Speed`)) return undefined;
  const min = cell(row, `Min${axisName}Speed`);
  const max = cell(row, `Max${axisName}Speed`);
  if (min === null || max === null || max < min) return requested ?? undefined;
  if (requested === null || requested === undefined) return Math.round((min + max) / 2);
  if (requested > max) {
    const turbo = flag(row, `HasTurbo${axisName}`) ? cell(row, `Turbo${axisName}Speed`) : null;
    return turbo ?? max;
  }
  return Math.max(min, requested);
}

/**
 * The step of a relative move, in the profile's units. The direction is in the command name, so
 * a step is a positive magnitude: `requested` (clamped into Min..Max<Axis>Step when the profile
 * has a range) or, when omitted, the middle of that range; never below 1.
 */
export function axisStep(row: ControlRow, axisName: string, requested?: number): number {
  const min = cell(row, `Min${axisName}Step`);
  const max = cell(row, `Max${axisName}Step`);
  let step = requested ?? (min !== null && max !== null && max >= min ? Math.round((min + max) / 2) : 1);
  if (requested !== undefined) {
    if (max !== null && max >= 1 && step > max) step = max;
    if (min !== null && step < min) step = min;
  }
  return Math.max(1, Math.round(step));
}
