// /system/status, /system/{startup,shutdown,restart,logrot}, /system/state and
// /server/control/{action}. Status figures: CPU from the difference between two /proc/stat
// samples (not the since-boot average), memory from /proc/meminfo, disk summed over the distinct
// file systems of the event storage paths (not "/").
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stat, statfs } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../../config/types.js';
import type { DbPool } from '../../db/pool.js';
import { ApiError, InvalidInputError, NotFoundError } from '../../errors.js';
import { type DaemonManager, Daemons } from './daemon-manager.js';
import type { DaemonActionResponse } from './daemons-service.js';
import { requireManager } from './daemons-service.js';
import type { DaemonStatusResponse } from './process-control.js';
import type { Services } from '../../registry.js';

export interface SystemStatsResponse {
  /** 1-minute load average. @isDouble */
  cpu_load: number;
  /** CPU busy percentage since the previous sample (or over a short sample on the first call). @isDouble */
  cpu_usage_percent: number;
  /** @isLong @minimum 0 */
  total_mem: number;
  /** MemFree + Buffers + Cached + SReclaimable, bytes. @isLong @minimum 0 */
  free_mem: number;
  /** @isLong @minimum 0 */
  total_swap: number;
  /** @isLong @minimum 0 */
  free_swap: number;
  /** Sum over the distinct file systems of the event storage paths, bytes. @isLong @minimum 0 */
  total_disk: number;
  /** @isLong @minimum 0 */
  used_disk: number;
  /** @isLong @minimum 0 */
  free_disk: number;
  /** @isDouble */
  disk_usage_percent: number;
  /** Connections open in this service's pool. @isInt @minimum 0 */
  db_connections?: number;
  /** The pool's configured maximum. @isInt @minimum 0 */
  db_max_connections?: number;
}

export interface SystemStatusResponse {
  running: boolean;
  daemons: DaemonStatusResponse[];
  stats?: SystemStatsResponse | null;
}

export interface ApplyStateRequest {
  /** States.Name. @minLength 1 @maxLength 64 */
  state_name: string;
}

export interface ServerControlResponse {
  message: string;
}

// ---- /proc readers -------------------------------------------------------------------------

interface CpuSample {
  busy: number;
  total: number;
}

function cpuSample(): CpuSample {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  // guest time is already counted in user/nice
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

let lastCpu: CpuSample | undefined;

async function cpuPercent(): Promise<number> {
  let before = lastCpu;
  if (!before) {
    before = cpuSample();
    await sleep(200);
  }
  const now = cpuSample();
  lastCpu = now;
  const dt = now.total - before.total;
  if (dt <= 0) return 0;
  return Math.round(((now.busy - before.busy) / dt) * 1000) / 10;
}

function meminfo(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync('/proc/meminfo', 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m) out[m[1]] = Number(m[2]) * 1024;
  }
  return out;
}

async function diskOf(paths: string[]): Promise<{ total: number; free: number }> {
  const seen = new Set<number>();
  let total = 0;
  let free = 0;
  for (const p of paths) {
    try {
      const dev = (await stat(p)).dev;
      if (seen.has(dev)) continue;
      seen.add(dev);
      const s = await statfs(p);
      total += s.blocks * s.bsize;
      free += s.bavail * s.bsize;
    } catch {
      // a storage area that is not mounted here counts for nothing
    }
  }
  return { total, free };
}

// ---- the service ---------------------------------------------------------------------------

const ACTIONS = ['start', 'stop', 'restart'] as const;

export class SystemService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): SystemService {
    return new SystemService(s.get(Daemons), s.pool, s.config);
  }

  constructor(
    private readonly manager: DaemonManager | null,
    private readonly pool: DbPool,
    private readonly config: AppConfig,
  ) {}

  async status(): Promise<SystemStatusResponse> {
    const m = requireManager(this.manager);
    const storage = await this.pool
      .query<Array<{ Path: string }>>('SELECT Path FROM Storage')
      .catch(() => [] as Array<{ Path: string }>);
    const disk = await diskOf([...storage.map((s) => s.Path).filter(Boolean), this.config.zoneminder.dir_events]);
    const mem = meminfo();
    const used = disk.total - disk.free;
    const daemons = m.list();
    return {
      running: !m.isHeld(),
      daemons,
      stats: {
        cpu_load: loadavg()[0],
        cpu_usage_percent: await cpuPercent(),
        total_mem: mem.MemTotal ?? 0,
        free_mem: (mem.MemFree ?? 0) + (mem.Buffers ?? 0) + (mem.Cached ?? 0) + (mem.SReclaimable ?? 0),
        total_swap: mem.SwapTotal ?? 0,
        free_swap: mem.SwapFree ?? 0,
        total_disk: disk.total,
        used_disk: used,
        free_disk: disk.free,
        disk_usage_percent: disk.total ? Math.round((used / disk.total) * 1000) / 10 : 0,
        db_connections: this.pool.totalConnections(),
        db_max_connections: this.config.db.pool_max,
      },
    };
  }

  async startup(): Promise<DaemonActionResponse> {
    const { started, failed } = await requireManager(this.manager).startup();
    const errors = failed.length
      ? `, ${failed.length} failed. Errors: ${failed.map((f) => `${f.key}: ${f.message}`).join('; ')}`
      : '';
    return { success: failed.length === 0, message: `System startup completed: ${started} daemons started${errors}` };
  }

  async shutdown(): Promise<DaemonActionResponse> {
    const { stopped, of } = await requireManager(this.manager).shutdown();
    return {
      success: true,
      message:
        stopped === of
          ? `Shutdown complete: ${stopped} daemons stopped`
          : `Shutdown complete: ${stopped} of ${of} daemons stopped`,
    };
  }

  async restart(): Promise<DaemonActionResponse> {
    requireManager(this.manager);
    await this.shutdown();
    await sleep(500);
    const up = await this.startup();
    return { success: up.success, message: `System restarted: ${up.message}` };
  }

  logrot(): DaemonActionResponse {
    const { signalled, failed } = requireManager(this.manager).logrot();
    return {
      success: failed === 0,
      message: `Log rotation triggered: ${signalled} daemons signaled, ${failed} failed`,
    };
  }

  /** Applies a States row to Monitors in one transaction, marks it active, then (takeover) restarts. */
  async applyState(body: ApplyStateRequest): Promise<DaemonActionResponse> {
    const name = body.state_name;
    const conn = await this.pool.getConnection();
    let applied = 0;
    try {
      const cols = new Set(
        (
          await conn.query<Array<{ c: string }>>(
            "SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Monitors' AND COLUMN_NAME IN ('Function', 'Capturing')",
          )
        ).map((r) => r.c),
      );
      await conn.beginTransaction();
      const [state] = await conn.query<Array<{ Id: number; Definition: string }>>(
        'SELECT Id, Definition FROM States WHERE Name = ? FOR UPDATE',
        [name],
      );
      if (!state)
        throw new NotFoundError(`State ${name.slice(0, 64)} not found`, [['state_name', name.slice(0, 64)]], 'CONFIG');
      for (const entry of (state.Definition ?? '').split(',').filter((e) => e.trim() !== '')) {
        const sets = stateAssignments(entry.trim(), cols.has('Function'), cols.has('Capturing'));
        if (!sets)
          throw new InvalidInputError('Invalid input', [
            ['state_name', `definition entry "${entry.slice(0, 40)}" cannot be applied`],
          ]);
        const keys = Object.keys(sets.values);
        if (keys.length === 0) continue;
        await conn.query(`UPDATE Monitors SET ${keys.map((k) => `\`${k}\` = ?`).join(', ')} WHERE Id = ?`, [
          ...Object.values(sets.values),
          sets.id,
        ]);
        applied++;
      }
      await conn.query('UPDATE States SET IsActive = (Id = ?)', [state.Id]);
      await conn.commit();
    } catch (err) {
      await conn.rollback().catch(() => undefined);
      throw err;
    } finally {
      conn.release();
    }
    if (!this.manager) {
      return {
        success: true,
        message: `State '${name}' applied to ${applied} monitors (daemons managed by zoneminder.service)`,
      };
    }
    const restarted = await this.restart();
    return {
      success: restarted.success,
      message: `State '${name}' applied to ${applied} monitors. ${restarted.message}`,
    };
  }

  /** POST /server/control/{action}: takeover acts on the supervisor; passive asks systemd. */
  async control(action: string): Promise<ServerControlResponse> {
    if (!(ACTIONS as readonly string[]).includes(action))
      throw new InvalidInputError('Invalid input', [['action', 'one of start, stop, restart']]);
    if (this.manager) {
      const r =
        action === 'start' ? await this.startup() : action === 'stop' ? await this.shutdown() : await this.restart();
      return { message: r.message };
    }
    await new Promise<void>((resolve, reject) => {
      execFile('systemctl', [action, 'zoneminder.service'], { timeout: 60_000 }, (err, _out, stderr) => {
        if (!err) return resolve();
        const reason = (stderr || err.message).split('\n')[0].slice(0, 200);
        reject(
          new ApiError(502, 'SERVICE_CONTROL_ERROR', `systemctl ${action} zoneminder.service failed`, [
            ['reason', reason],
          ]),
        );
      });
    });
    return {
      message: `zoneminder.service ${action === 'stop' ? 'stopped' : action === 'start' ? 'started' : 'restarted'}`,
    };
  }
}

const FUNCTION_MODES: Record<string, { Analysing: string; Recording: string }> = {
  Monitor: { Analysing: 'None', Recording: 'None' },
  Modect: { Analysing: 'Always', Recording: 'OnMotion' },
  Record: { Analysing: 'None', Recording: 'Always' },
  Mocord: { Analysing: 'Always', Recording: 'Always' },
  Nodect: { Analysing: 'None', Recording: 'OnMotion' },
};

/** The column values one definition entry sets, for the columns this schema has. */
export function stateAssignments(
  entry: string,
  hasFunction: boolean,
  hasCapturing: boolean,
): { id: number; values: Record<string, string | number> } | null {
  const parts = entry.split(':');
  if (!/^\d+$/.test(parts[0] ?? '')) return null;
  const id = Number(parts[0]);
  const values: Record<string, string | number> = {};
  if (parts.length === 4) {
    const [, capturing, analysing, recording] = parts;
    if (
      !['None', 'Ondemand', 'Always'].includes(capturing) ||
      !['None', 'Always'].includes(analysing) ||
      !['None', 'OnMotion', 'Always'].includes(recording)
    )
      return null;
    if (hasCapturing) Object.assign(values, { Capturing: capturing, Analysing: analysing, Recording: recording });
    else if (hasFunction) {
      // A 1.36 schema: the nearest Function.
      const fn =
        capturing === 'None'
          ? 'None'
          : (Object.entries(FUNCTION_MODES).find(
              ([, m]) => m.Analysing === analysing && m.Recording === recording,
            )?.[0] ?? (analysing === 'Always' ? 'Modect' : 'Monitor'));
      values.Function = fn;
    }
    return { id, values };
  }
  if (parts.length === 3) {
    const [, fn, enabled] = parts;
    if (fn !== 'None' && !FUNCTION_MODES[fn]) return null;
    if (enabled !== '0' && enabled !== '1') return null;
    if (hasFunction) Object.assign(values, { Function: fn, Enabled: Number(enabled) });
    if (hasCapturing) {
      values.Capturing = fn === 'None' || enabled === '0' ? 'None' : 'Always';
      if (fn !== 'None') Object.assign(values, FUNCTION_MODES[fn]);
    }
    return { id, values };
  }
  return null;
}
