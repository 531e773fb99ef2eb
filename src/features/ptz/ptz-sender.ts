// Sending PTZ commands: each command is one JSON message on the monitor's zmcontrol.pl socket,
// sent in order by one control client per app (zmcontrol-client.ts); a continuous move may carry
// a timed stop, sent after the answer (its failure can only be logged); an unreachable daemon is
// a 503 naming zmcontrol.pl and why.
import { ServiceUnavailableError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Mode, Target } from './ptz-target.js';
import { ControlSocketError, type ControlMessage, type ZmControlClient } from './zmcontrol-client.js';

export interface PtzCommandResponse {
  success: boolean;
  /** What was sent, e.g. `moveConUp (tiltspeed 32)`. */
  message: string;
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

export class PtzSender {
  constructor(
    private readonly zmcontrol: ZmControlClient,
    private readonly log: Logger,
  ) {}

  /** Whether the monitor's zmcontrol.pl answers on its socket. */
  probe(monitorId: number): Promise<boolean> {
    return this.zmcontrol.probe(monitorId);
  }

  /** A continuous command with an optional timed stop; autostop as the web UI adds it. */
  async continuous(
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
    this.#scheduleStop({ monitorId: t.monitorId, command: stopCommand, afterMs: durationMs });
    return { success: true, message: `${result.message}; ${stopCommand} in ${durationMs} ms` };
  }

  /** Sends the messages in order; an unreachable daemon is a 503 naming zmcontrol.pl. */
  async run(t: Target, messages: ControlMessage[]): Promise<PtzCommandResponse> {
    for (const message of messages) {
      try {
        await this.zmcontrol.send(t.monitorId, message);
      } catch (err) {
        if (!(err instanceof ControlSocketError)) throw err;
        this.log.warn(
          { monitor_id: t.monitorId, command: message.command, reason: err.reason },
          'PTZ command not delivered',
        );
        throw new ServiceUnavailableError(unavailable(t.monitorId, err), [
          ['monitor_id', String(t.monitorId)],
          ['daemon', 'zmcontrol.pl'],
          ['reason', err.reason],
        ]);
      }
    }
    return { success: true, message: `Sent ${messages.map(describe).join('; ')} to monitor ${t.monitorId}` };
  }

  #scheduleStop(stop: PendingStop): void {
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
}

function unavailable(monitorId: number, err: ControlSocketError): string {
  switch (err.reason) {
    case 'permission denied':
      return `zmgate may not use the PTZ control socket of monitor ${monitorId}: run it as the ZoneMinder user or in its group`;
    case 'timeout':
      return `The PTZ control daemon (zmcontrol.pl) of monitor ${monitorId} is not responding`;
    default:
      return `The PTZ control daemon (zmcontrol.pl) is not running for monitor ${monitorId}`;
  }
}
