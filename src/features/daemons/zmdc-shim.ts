// The zmdc.pl control socket, served by the supervisor so ZoneMinder's own zmdc.pl client,
// zmpkg.pl, zmu and the classic web UI keep working in takeover mode. One message per
// connection, `command;daemon;arg1;arg2…` without a newline; the reply is zmdc.pl's own text,
// byte for byte, then the connection closes (docs/zoneminder/daemons.md, "zmdc.sock").
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import type { AppConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import { badArgument, daemonId, isDaemonName, type DaemonId } from './daemon-ids.js';
import type { DaemonStatusResponse, Outcome } from './process-control.js';
import type { Supervisor } from './supervisor.js';

/**
 * What the shim drives: the daemon manager (daemon-manager.ts, which starts the shim), described
 * here so that the two files do not import each other.
 */
export interface ShimTarget {
  readonly supervisor: Pick<Supervisor, 'snapshot' | 'check'>;
  status(key: string): DaemonStatusResponse | undefined;
  start(id: DaemonId): Outcome;
  stop(key: string): Outcome;
  restart(id: DaemonId): Outcome;
  reload(key: string): Outcome;
  logrot(): { signalled: number; failed: number };
  shutdown(): Promise<{ stopped: number; of: number }>;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** zmdc's strftime('%y/%m/%d %H:%M:%S', localtime(t)). */
export function zmdcTime(ms: number = Date.now()): string {
  const d = new Date(ms);
  return `${pad(d.getFullYear() % 100)}/${pad(d.getMonth() + 1)}/${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The socket path: ZM_PATH_SOCKS/zmdc.sock, or zmdc<ServerId>.sock in a multi-server install. */
export function shimSocketPath(socksDir: string, serverId?: number): string {
  return join(socksDir, serverId ? `zmdc${serverId}.sock` : 'zmdc.sock');
}

/** The largest message accepted; zmdc's are a few dozen bytes. */
const MAX_MESSAGE = 4096;

export class ZmdcShim {
  private server?: net.Server;
  readonly path: string;

  constructor(
    private readonly manager: ShimTarget,
    config: AppConfig,
    private readonly log: Logger,
    serverId?: number,
  ) {
    this.path = shimSocketPath(config.zoneminder.path_socks, serverId);
  }

  async listen(): Promise<void> {
    const dir = join(this.path, '..');
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    if (existsSync(this.path)) unlinkSync(this.path); // zmdc unlinks a stale socket the same way
    // Half-open: the client half-closes after its message and then reads the reply.
    const server = net.createServer({ allowHalfOpen: true }, (socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.log.warn({ err: { message: err.message } }, 'zmdc.sock shim error'));
    this.server = server;
    // The web user (www-data) must be able to connect: group-writable, and the web group if it exists.
    try {
      chmodSync(this.path, 0o770);
      const gid = webGroupId();
      if (gid !== undefined) chownSync(this.path, -1, gid);
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'zmdc.sock shim: cannot set mode/group');
    }
    this.log.info({ path: this.path }, 'zmdc.sock shim listening');
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }

  private serve(socket: net.Socket): void {
    let data = '';
    let done = false;
    const answer = () => {
      if (done) return;
      done = true;
      // zmdc reads one line: the message ends at EOF (the client's shutdown) or a newline.
      const line = data.split('\n')[0];
      this.handle(line).then(
        (reply) => socket.end(reply),
        (err: Error) => {
          this.log.warn({ err: { message: err.message } }, 'zmdc.sock shim command failed');
          socket.end();
        },
      );
    };
    socket.setEncoding('utf8');
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.includes('\n') || data.length > MAX_MESSAGE) answer();
    });
    socket.on('end', answer);
    socket.on('error', () => socket.destroy());
  }

  /** The reply text to one message. */
  async handle(message: string): Promise<string> {
    const [command, daemon, ...args] = message.split(';');
    const needsDaemon = ['start', 'stop', 'restart', 'reload'].includes(command);
    let id: DaemonId | undefined;
    if (daemon) {
      if (!isDaemonName(daemon) || badArgument(args)) return `Invalid daemon '${daemon} ${args.join(' ')}' specified\n`;
      id = daemonId(daemon, args);
    } else if (needsDaemon) {
      return 'No daemon given\n';
    }
    const m = this.manager;
    switch (command) {
      case 'start':
        return startText(id!, m.start(id!));
      case 'stop':
        return stopText(id!.key, m.stop(id!.key));
      case 'restart': {
        let reply = `Restarting ${id!.key}\n`;
        if (!m.status(id!.key)) reply += `Can't find process with command of '${id!.key}'\n`;
        const outcome = m.restart(id!);
        return reply + (outcome.kind === 'stop-sent' ? stopText(id!.key, outcome) : startText(id!, outcome));
      }
      case 'reload':
        m.reload(id!.key);
        return '';
      case 'logrot':
        m.logrot();
        return '';
      case 'check':
        return `${m.supervisor.check(id!.key)}\n`;
      case 'status':
        return id ? statusOne(m, id.key) : statusAll(m);
      case 'startup':
        return `Already running, ignoring command 'startup'\n`;
      case 'shutdown': {
        const stops = m.supervisor.snapshot().filter((s) => s.pid !== undefined);
        await m.shutdown();
        return (
          stops.map((s) => `'${s.key}' sending stop to pid ${s.pid} at ${zmdcTime()}\n`).join('') +
          `Server shutdown at ${zmdcTime()}\n`
        );
      }
      default:
        return `Invalid command '${command}'\n`;
    }
  }
}

function startText(id: DaemonId, o: Outcome): string {
  switch (o.kind) {
    case 'started':
      // zmdc's parent and its forked child both write a line to the client.
      return `'${id.key}' starting at ${zmdcTime(o.at)}, pid = ${o.pid}\n'${id.key}' started at ${zmdcTime(o.at)}\n`;
    case 'already-running':
      return `'${id.key}' already running at ${zmdcTime(o.since)}, pid = ${o.pid}\n`;
    case 'was-terminating':
      return `'${id.key}' was told to term at ${zmdcTime(o.termSentAt)}, pid = ${o.pid}\n`;
    case 'failed':
      // zmdc's child would die with "Can't exec"; the supervisor reports why instead.
      return `'${id.key}' failed to start: ${o.message}\n`;
    default:
      return '';
  }
}

function stopText(key: string, o: Outcome): string {
  switch (o.kind) {
    case 'stop-sent':
      return `'${key}' sending stop to pid ${o.pid} at ${zmdcTime(o.at)}\n`;
    case 'pending-removed':
      return `Command '${key}' removed from pending list at ${zmdcTime(o.at)}\n`;
    case 'not-running':
      return `No process with command of '${key}' is running\n`;
    default:
      return `Can't find process with command of '${key}'`;
  }
}

function statusOne(m: ShimTarget, key: string): string {
  const s = m.supervisor.snapshot().find((p) => p.key === key);
  if (!s || (s.pid === undefined && s.pendingAt === undefined)) return `'${key}' not running\n`;
  let out = '';
  if (s.pendingAt !== undefined) out += `'${key}' pending at ${zmdcTime(s.pendingAt)}\n`;
  // zmdc prints this line without a newline (and with an empty pid for a pending daemon).
  return `${out}'${key}' running since ${zmdcTime(s.started)}, pid = ${s.pid ?? ''}`;
}

function statusAll(m: ShimTarget): string {
  const all = m.supervisor.snapshot();
  let out = '';
  for (const s of all)
    if (s.pid !== undefined)
      out += `'${s.key}' running since ${zmdcTime(s.started)}, pid = ${s.pid}${isAlive(s.pid) ? ', valid' : ''}\n`;
  for (const s of all) if (s.pendingAt !== undefined) out += `'${s.key}' pending at ${zmdcTime(s.pendingAt)}\n`;
  return out;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The gid of the web group (www-data on Debian), if the host has one. */
function webGroupId(): number | undefined {
  try {
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [name, , gid] = line.split(':');
      if (name === 'www-data') return Number(gid);
    }
  } catch {
    // no /etc/group
  }
  return undefined;
}
