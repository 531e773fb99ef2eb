// The client side of zmcontrol.pl's per-monitor control socket (docs/zoneminder/ptz.md). One connection per
// command: connect to <ZM_PATH_SOCKS>/zmcontrol-<id>.sock, write ONE JSON object with no newline
// (the server reads a single line), half-close, done. The server sends nothing back unless asked
// (1.39 `wants_response`), and we never ask: the reply only comes after the camera module has run
// the command, which may sleep for the monitor's AutoStopTimeout.
//
// Every exchange is bounded by a timeout so a hung daemon cannot hang a request, and commands to
// one socket are serialised (one at a time, in order): zmcontrol.pl handles one connection at a
// time anyway, and a move followed by its stop must reach the camera in that order. The queues
// are keyed by socket path on the client, which the app builds once (PtzService.from).
import { createConnection } from 'node:net';
import { join } from 'node:path';

/** Why a command could not be delivered. */
export type ControlSocketFailure =
  'socket missing' | 'connection refused' | 'permission denied' | 'timeout' | 'socket error';

export class ControlSocketError extends Error {
  constructor(readonly reason: ControlSocketFailure) {
    super(`zmcontrol socket: ${reason}`);
    this.name = 'ControlSocketError';
  }
}

/** What zmcontrol.pl accepts: `command` plus its CLI long options (values may be strings). */
export interface ControlMessage {
  command: string;
  [option: string]: string | number;
}

/** Connect + write + half-close must finish within this (the reference uses 1 s to connect). */
export const DEFAULT_CONTROL_TIMEOUT_MS = 1500;

function failure(err: NodeJS.ErrnoException): ControlSocketFailure {
  switch (err.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'socket missing';
    case 'ECONNREFUSED':
      return 'connection refused'; // a stale socket file: the daemon died without unlinking it
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return 'socket error';
  }
}

export class ZmControlClient {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly socketDir: string,
    private readonly timeoutMs = DEFAULT_CONTROL_TIMEOUT_MS,
  ) {}

  socketPath(monitorId: number): string {
    return join(this.socketDir, `zmcontrol-${monitorId}.sock`);
  }

  /** Delivers one command; rejects with ControlSocketError when the daemon cannot be reached. */
  send(monitorId: number, message: ControlMessage): Promise<void> {
    // JSON.stringify never emits a raw newline (they are escaped inside strings), so the
    // one-line framing zmcontrol.pl expects holds for any value.
    const line = JSON.stringify(message);
    const path = this.socketPath(monitorId);
    return this.serial(path, () => this.exchange(path, line));
  }

  /**
   * Whether the daemon accepts connections. Connecting and closing without writing is harmless:
   * zmcontrol.pl reads an empty message and skips it (`next if !$message`).
   */
  async probe(monitorId: number): Promise<boolean> {
    const path = this.socketPath(monitorId);
    try {
      await this.serial(path, () => this.exchange(path, null));
      return true;
    } catch {
      return false;
    }
  }

  /** Runs `task` after every earlier task on the same socket has settled. */
  private serial<T>(key: string, task: () => Promise<T>): Promise<T> {
    const queues = this.queues;
    const previous = queues.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  }

  private exchange(path: string, line: string | null): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const socket = createConnection({ path });
      const finish = (err?: ControlSocketError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(() => finish(new ControlSocketError('timeout')), this.timeoutMs);
      socket.on('error', (err: NodeJS.ErrnoException) => finish(new ControlSocketError(failure(err))));
      socket.once('connect', () => {
        // end() writes the line and then half-closes (shutdown(SHUT_WR)), like zmcontrol.pl's own
        // client; 'finish' fires once both have been handed to the kernel.
        socket.once('finish', () => finish());
        if (line === null) socket.end();
        else socket.end(line);
      });
    });
  }
}
