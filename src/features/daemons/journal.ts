// Supervision events (start, exit and its cause, restart delay, hang restart, reconcile decision,
// start-up kill) go to the systemd journal as structured entries when its native socket exists,
// otherwise to the service log. Never to ZoneMinder's Logs table. The native protocol is one
// datagram of KEY=value lines; a value containing a newline uses the length-prefixed form
// (docs/zoneminder/daemons.md, "Journal").
import { existsSync } from 'node:fs';
import type { Logger } from '../../log.js';
import { sendUnixDatagram } from '../../native/index.js';

/** syslog priorities the journal uses. */
export const PRIORITY = { err: 3, warning: 4, notice: 5, info: 6, debug: 7 } as const;
export type Priority = keyof typeof PRIORITY;

export interface SupervisionEvent {
  priority: Priority;
  message: string;
  /** The daemon key, e.g. "zmc -m 7". */
  daemon?: string;
  monitorId?: number;
  pid?: number;
  /** What happened, machine-readable: start, exit, restart, kill, hang, reconcile, … */
  action: string;
  /** Further fields, upper-cased into journal field names. */
  extra?: Record<string, string | number>;
}

/** One native-protocol entry. */
export function journalEntry(event: SupervisionEvent, identifier = 'zmgate'): Buffer {
  const fields: Array<[string, string]> = [
    ['MESSAGE', event.message],
    ['PRIORITY', String(PRIORITY[event.priority])],
    ['SYSLOG_IDENTIFIER', identifier],
    ['ZMGATE_ACTION', event.action],
  ];
  if (event.daemon !== undefined) fields.push(['ZMGATE_DAEMON', event.daemon]);
  if (event.monitorId !== undefined) fields.push(['ZMGATE_MONITOR_ID', String(event.monitorId)]);
  if (event.pid !== undefined) fields.push(['ZMGATE_PID', String(event.pid)]);
  for (const [k, v] of Object.entries(event.extra ?? {}))
    fields.push([`ZMGATE_${k.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`, String(v)]);
  const parts: Buffer[] = [];
  for (const [k, v] of fields) {
    if (!v.includes('\n')) {
      parts.push(Buffer.from(`${k}=${v}\n`));
      continue;
    }
    const value = Buffer.from(v);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(value.length));
    parts.push(Buffer.from(`${k}\n`), len, value, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

export class SupervisionJournal {
  constructor(
    private readonly log: Logger,
    private readonly socketPath: string,
  ) {}

  record(event: SupervisionEvent): void {
    if (existsSync(this.socketPath)) {
      try {
        sendUnixDatagram(this.socketPath, journalEntry(event));
        return;
      } catch (err) {
        this.log.warn(
          { err: { message: (err as Error).message } },
          'journal unavailable; supervision events go to the service log',
        );
      }
    }
    const fields = {
      supervision: event.action,
      daemon: event.daemon,
      monitor_id: event.monitorId,
      pid: event.pid,
      ...event.extra,
    };
    const level =
      event.priority === 'err'
        ? 'error'
        : event.priority === 'warning'
          ? 'warn'
          : event.priority === 'debug'
            ? 'debug'
            : 'info';
    this.log[level](fields, event.message);
  }
}
