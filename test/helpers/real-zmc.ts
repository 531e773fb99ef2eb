// Real ZoneMinder in the test loop: Debian's zoneminder 1.36 package's own zmc, capturing a local
// file made by ffmpeg (a monitor of Type `Ffmpeg` whose Path is the file), against a throwaway
// database holding the real 1.36 schema.
//
// zmc reads its database settings and paths from /etc/zm/zm.conf and then /etc/zm/conf.d/*.conf.
// So that tests (and other people's zmc) never see each other's settings, each zmc runs in a
// private mount namespace (`unshare --mount`) in which /etc/zm/conf.d is a temporary copy of the
// system's, plus the conf.d file the test writes (database, events, shared-memory and socket
// paths all under the test's temporary directory); stop() removes all of it. The temporary
// directory lives under /dev/shm, as zmc's shared-memory files belong on tmpfs.
//
// Needs root (the mount namespace; zmc itself) and /usr/bin/zmc: realZmcUnavailable() says why not.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { FreshDatabase } from './mariadb.js';

export const ZMC = '/usr/bin/zmc';
const SYSTEM_CONF_D = '/etc/zm/conf.d';
/** Debian's www-data group (fixed by base-passwd). */
const WWW_DATA_GID = 33;

/** Why real-zmc tests cannot run here, or null when they can. */
export function realZmcUnavailable(): string | null {
  if (!existsSync(ZMC)) return `${ZMC} is not installed (Debian package zoneminder; bash .ci/run installs it)`;
  if (process.getuid?.() !== 0) return 'real zmc tests need root (zmc and a private mount namespace for its conf.d)';
  if (!existsSync('/usr/bin/unshare')) return 'unshare (util-linux) is missing';
  return null;
}

export interface RealZmcPaths {
  /** The test's directory; removed by stop(). */
  base: string;
  events: string;
  map: string;
  socks: string;
  logs: string;
}

/** One test's ZoneMinder paths and its conf.d; start monitors with start(). */
export class RealZm {
  readonly paths: RealZmcPaths;
  private readonly confD: string;
  /** A copy of /etc/zm/zm.conf readable by www-data, bound over the machine's; null: the machine's. */
  private readonly zmConf: string | null;
  private readonly children = new Map<number, ChildProcess>();
  private readonly output = new Map<number, string>();

  /**
   * `forWebServer`: for ZoneMinder's PHP in a web server whose workers run as www-data. ZoneMinder
   * then reaches the database as the database's own user over TCP (MariaDB's root login by socket
   * refuses www-data), and its config files are readable by the group www-data (as the package's
   * installation makes /etc/zm/zm.conf; a copy is put in its place, the machine's is not touched).
   */
  constructor(db: FreshDatabase, opts: { forWebServer?: boolean } = {}) {
    const base = mkdtempSync(path.join('/dev/shm', 'zmgate-realzmc-'));
    this.paths = {
      base,
      events: path.join(base, 'events'),
      map: path.join(base, 'map'),
      socks: path.join(base, 'socks'),
      logs: path.join(base, 'logs'),
    };
    for (const dir of [this.paths.events, this.paths.map, this.paths.socks, this.paths.logs, path.join(base, 'swap')])
      mkdirSync(dir, { recursive: true });
    this.confD = path.join(base, 'conf.d');
    mkdirSync(this.confD);
    if (existsSync(SYSTEM_CONF_D)) {
      for (const name of readdirSync(SYSTEM_CONF_D))
        if (name.endsWith('.conf')) cpSync(path.join(SYSTEM_CONF_D, name), path.join(this.confD, name));
    }
    // Read last (names sort after the package's), so these win.
    writeFileSync(
      path.join(this.confD, '99-zmgate-test.conf'),
      [
        ...(opts.forWebServer
          ? [`ZM_DB_HOST=127.0.0.1:${db.userConfig.port}`, `ZM_DB_USER=${db.user}`, `ZM_DB_PASS=${db.password}`]
          : [`ZM_DB_HOST=localhost:${db.db.socket}`, 'ZM_DB_USER=root', 'ZM_DB_PASS=']),
        `ZM_DB_NAME=${db.name}`,
        `ZM_DIR_EVENTS=${this.paths.events}`,
        `ZM_PATH_MAP=${this.paths.map}`,
        `ZM_PATH_SOCKS=${this.paths.socks}`,
        `ZM_PATH_LOGS=${this.paths.logs}`,
        `ZM_PATH_SWAP=${path.join(base, 'swap')}`,
        '',
      ].join('\n'),
    );
    this.zmConf = null;
    if (opts.forWebServer) {
      chmodSync(base, 0o755);
      this.zmConf = path.join(base, 'zm.conf');
      cpSync('/etc/zm/zm.conf', this.zmConf);
      chownSync(this.zmConf, 0, WWW_DATA_GID);
      chmodSync(this.zmConf, 0o640);
    }
  }

  /**
   * `command ...args` seeing this test's conf.d (in a private mount namespace). `detached`: in a
   * process group of its own (apache2 signals its whole group when it stops).
   */
  spawn(command: string, args: string[], opts: { detached?: boolean } = {}): ChildProcess {
    const script =
      'mount --bind "$1" /etc/zm/conf.d && { [ -z "$2" ] || mount --bind "$2" /etc/zm/zm.conf; } && shift 2 && exec "$@"';
    return spawn(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        script,
        'sh',
        this.confD,
        this.zmConf ?? '',
        command,
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false },
    );
  }

  /**
   * Fills the Config table as the package's installer does (`zmupdate.pl --freshen`): zm_create.sql
   * leaves it empty and zmc refuses to start without its rows.
   */
  async freshen(): Promise<void> {
    const child = this.spawn('/usr/bin/zmupdate.pl', ['--freshen', '--nointeractive']);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`zmupdate.pl --freshen failed (exit ${code}): ${out.slice(-2000)}`);
  }

  /**
   * A local H.264 file for monitors of Type `Ffmpeg` to capture, made by ffmpeg from lavfi `inputs`
   * (each a source description, e.g. `color=c=gray:s=640x360:r=10:d=60`), through `filter`
   * (a -filter_complex graph, or a -vf chain for one input) when given; a keyframe every 10 frames.
   */
  async clip(name: string, inputs: string[], filter?: string): Promise<string> {
    const file = path.join(this.paths.base, name);
    const args = ['-v', 'error', ...inputs.flatMap((i) => ['-f', 'lavfi', '-i', i])];
    if (filter) args.push(inputs.length > 1 ? '-filter_complex' : '-vf', filter);
    args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '10', file);
    await new Promise<void>((resolve, reject) =>
      execFile('ffmpeg', args, (err, _out, stderr) =>
        err ? reject(new Error(`ffmpeg ${name}: ${stderr || err.message}`)) : resolve(),
      ),
    );
    return file;
  }

  /** Starts `zmc -m id` with this test's conf.d; its output is kept for failure messages. */
  start(monitorId: number): ChildProcess {
    const child = this.spawn(ZMC, ['-m', String(monitorId)]);
    this.output.set(monitorId, '');
    const keep = (data: Buffer) =>
      this.output.set(monitorId, `${this.output.get(monitorId)}${data.toString()}`.slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.children.set(monitorId, child);
    // A test process that dies without stop() must not leave zmc capturing.
    process.once('exit', () => child.kill('SIGKILL'));
    return child;
  }

  /** What zmc of `monitorId` printed (its last 8000 characters). */
  log(monitorId: number): string {
    return this.output.get(monitorId) ?? '';
  }

  /** Stops one zmc (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  async stopMonitor(monitorId: number): Promise<void> {
    const child = this.children.get(monitorId);
    this.children.delete(monitorId);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /** Stops every zmc started here and removes the directory (conf.d file, events, shared memory). */
  async stop(): Promise<void> {
    await Promise.all([...this.children.keys()].map((id) => this.stopMonitor(id)));
    rmSync(this.paths.base, { recursive: true, force: true });
  }
}

/** Polls `check` every 250 ms until it returns a value (not null/undefined/false) or `ms` pass. */
export async function waitFor<T>(
  what: string,
  ms: number,
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
