// CPU and memory of this host, as Server_Stats stores them. CPU percentages come from the
// difference between two reads of /proc/stat (the counters are cumulative since boot, so one
// read alone would give the average since boot). The previous read is kept between passes, so a
// sample covers the whole interval; the very first pass reads twice, `firstGapMs` apart.
import { readFile } from 'node:fs/promises';
import os from 'node:os';

export interface CpuTimes {
  user: number;
  nice: number;
  system: number;
  idle: number;
  total: number;
}

export interface HostSample {
  cpuLoad: number;
  cpuUserPercent: number;
  cpuNicePercent: number;
  cpuSystemPercent: number;
  cpuIdlePercent: number;
  cpuUsagePercent: number;
  totalMem: number;
  freeMem: number;
  totalSwap: number;
  freeSwap: number;
}

/** The aggregate `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal… (jiffies). */
export function parseProcStat(text: string): CpuTimes {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error('no cpu line in /proc/stat');
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // guest time is already counted in user/nice.
  return {
    user,
    nice,
    system: system + irq + softirq + steal,
    idle: idle + iowait,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function cpuPercent(
  a: CpuTimes,
  b: CpuTimes,
): Pick<HostSample, 'cpuUserPercent' | 'cpuNicePercent' | 'cpuSystemPercent' | 'cpuIdlePercent' | 'cpuUsagePercent'> {
  const total = b.total - a.total;
  if (total <= 0)
    return { cpuUserPercent: 0, cpuNicePercent: 0, cpuSystemPercent: 0, cpuIdlePercent: 100, cpuUsagePercent: 0 };
  const pct = (x: number) => round1(Math.min(100, Math.max(0, (x * 100) / total)));
  const idle = pct(b.idle - a.idle);
  return {
    cpuUserPercent: pct(b.user - a.user),
    cpuNicePercent: pct(b.nice - a.nice),
    cpuSystemPercent: pct(b.system - a.system),
    cpuIdlePercent: idle,
    cpuUsagePercent: round1(100 - idle),
  };
}

/** /proc/meminfo in bytes. FreeMem is MemAvailable (what can be used without swapping), MemFree on old kernels. */
export function parseMeminfo(text: string): Pick<HostSample, 'totalMem' | 'freeMem' | 'totalSwap' | 'freeSwap'> {
  const kb = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m) kb.set(m[1], Number(m[2]) * 1024);
  }
  return {
    totalMem: kb.get('MemTotal') ?? 0,
    freeMem: kb.get('MemAvailable') ?? kb.get('MemFree') ?? 0,
    totalSwap: kb.get('SwapTotal') ?? 0,
    freeSwap: kb.get('SwapFree') ?? 0,
  };
}

export interface HostSamplerOptions {
  procStat?: () => Promise<string>;
  meminfo?: () => Promise<string>;
  loadavg?: () => number;
  firstGapMs?: number;
}

export class HostSampler {
  private previous: CpuTimes | null = null;
  private readonly procStat: () => Promise<string>;
  private readonly meminfo: () => Promise<string>;
  private readonly loadavg: () => number;

  constructor(private readonly options: HostSamplerOptions = {}) {
    this.procStat = options.procStat ?? (() => readFile('/proc/stat', 'utf8'));
    this.meminfo = options.meminfo ?? (() => readFile('/proc/meminfo', 'utf8'));
    this.loadavg = options.loadavg ?? (() => os.loadavg()[0]);
  }

  async sample(): Promise<HostSample> {
    let before = this.previous;
    if (!before) {
      before = parseProcStat(await this.procStat());
      await new Promise((r) => setTimeout(r, this.options.firstGapMs ?? 1000));
    }
    const now = parseProcStat(await this.procStat());
    this.previous = now;
    return { cpuLoad: round1(this.loadavg()), ...cpuPercent(before, now), ...parseMeminfo(await this.meminfo()) };
  }
}
