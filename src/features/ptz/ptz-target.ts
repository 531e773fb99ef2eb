// The monitor a PTZ command is for, as ZoneMinder's control profile describes it: the row ACL, the
// monitor's control profile (400 when it has none: the reference client reads 400 as "not PTZ"),
// the capability a command needs (400 naming it), and the mode each axis moves in.
import type { AuthUser } from '../../auth/auth-service.js';
import {
  monitorNotFound,
  requireEditableMonitor,
  requireVisibleMonitor,
  type MonitorAcl,
} from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { BadRequestError, InvalidInputError } from '../../errors.js';
import { capabilityName, cell, flag, type ControlRow } from './ptz-capabilities.js';
import type { ControlMessage } from './zmcontrol-client.js';

export type Mode = 'Con' | 'Rel' | 'Abs';

export interface Target {
  monitorId: number;
  control: ControlRow;
  /** Monitors.AutoStopTimeout is set: continuous commands carry `autostop` as the web UI does. */
  autoStop: boolean;
}

/** The monitor and its control profile, after the row ACL (`write`: the monitor must be editable). */
export async function ptzTarget(
  prisma: PrismaClient,
  acl: Pick<MonitorAcl, 'scope'>,
  user: AuthUser,
  monitorId: number,
  write: boolean,
): Promise<Target> {
  const scope = await acl.scope(user);
  if (write) requireEditableMonitor(scope, monitorId);
  else requireVisibleMonitor(scope, monitorId);
  const monitor = await prisma.monitors.findUnique({
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
  const control = await prisma.controls.findUnique({ where: { Id: monitor.ControlId } });
  if (!control) {
    throw new BadRequestError(`Monitor ${monitorId} has no PTZ control configured`, [
      ...details,
      ['reason', `control profile ${monitor.ControlId} does not exist`],
    ]);
  }
  return { monitorId, control, autoStop: monitor.AutoStopTimeout !== null && Number(monitor.AutoStopTimeout) > 0 };
}

/** 400 naming the capability (as /controls names it) when the profile lacks it. */
export function need(t: Target, column: string): void {
  if (flag(t.control, column)) return;
  const capability = capabilityName(column);
  throw new BadRequestError(`The control profile of monitor ${t.monitorId} lacks ${capability}`, [
    ['capability', capability],
    ['monitor_id', String(t.monitorId)],
    ['control_id', String(t.control.Id)],
  ]);
}

/** Continuous if the profile can, else relative, else absolute steps (ZoneMinder's web UI order). */
export function modeFor(t: Target, axis: string): Mode {
  for (const mode of ['Con', 'Rel', 'Abs'] as const) if (flag(t.control, `Can${axis}${mode}`)) return mode;
  need(t, `Can${axis}Con`);
  throw new Error('unreachable');
}

/** Sets an option of a control message, as zmcontrol.pl's own clients write it. */
export function option(message: ControlMessage, name: string, value: number | undefined): void {
  // zmcontrol.pl's own client and the PHP UI send option values as strings ("32").
  if (value !== undefined) message[name] = String(value);
}

/** 400 unless the preset number is one the control profile has. */
export function presetInRange(t: Target, preset: number): void {
  const count = cell(t.control, 'NumPresets') ?? 0;
  if (preset < 1 || (count > 0 && preset > count)) {
    const range = count > 0 ? `1..${count}` : '>= 1';
    throw new InvalidInputError(`Preset ${preset} is out of range`, [
      ['preset_id', `presets of this control profile are numbered ${range}`],
    ]);
  }
}
