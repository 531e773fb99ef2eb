// What a retention pass works from, before it deletes anything: the Storages (and ZM_DIR_EVENTS for
// events without one), the limits in force for each, the checks that make a pass refuse a
// Storage, and the measured figures (free space, quota use). The status route shows exactly what
// inspectStorage() finds; the pass (retention-pass.ts) acts on it.
import * as fsp from 'node:fs/promises';
import type { AppConfig } from '../../config/types.js';
import type { PrismaClient } from '../../db/prisma.js';
import { isSafeRoot } from '../../zm/event-paths.js';
import { floorBytes, limitsFor, type LimitName, type LimitTexts, type StorageLimits } from './limits.js';
import {
  DEFAULT_STORAGE_ID,
  eventStorageIds,
  storageCondition,
  storageRows,
  storageUsage,
} from './retention-queries.js';

/** Free and total bytes of the volume holding a path (statvfs). */
export type VolumeMeter = (dir: string) => Promise<{ free: number; total: number }>;

export const statfsMeter: VolumeMeter = async (dir) => {
  const s = await fsp.statfs(dir);
  return { free: Number(s.bavail) * Number(s.bsize), total: Number(s.blocks) * Number(s.bsize) };
};

export interface StorageTarget {
  id: number;
  name: string;
  root: string;
  doDelete: boolean;
}

export interface Measured {
  free_bytes: number | null;
  total_bytes: number | null;
  floor_bytes: number | null;
  /** Summed Events.DiskSpace (only measured when a quota is set). */
  used_bytes: number | null;
  events: number | null;
  events_without_disk_space: number | null;
}

export type StorageState = 'ok' | 'no_limits' | 'skipped' | 'refused' | 'error';

export interface StorageReport {
  storage_id: number;
  name: string;
  path: string;
  do_delete: boolean;
  /** The limits in force ("" = none), after any override. */
  limits: LimitTexts;
  /** The override that applied (its `storage` value), or null for the defaults. */
  override: string | null;
  state: StorageState;
  /** Why the Storage was skipped or refused, or what failed. */
  reason: string | null;
  measured: Measured;
  /** Limits breached when measured (status) or still breached when the pass left it. */
  breached: LimitName[];
  deleted: number;
  bytes_freed: number;
  /** Candidates passed over because a guarantee protects them. */
  kept: number;
}

interface InspectDeps {
  prisma: PrismaClient;
  config: AppConfig['retention'];
}

const LIMIT_ORDER: LimitName[] = ['free_space_floor', 'quota', 'max_age'];
export const errText = (err: unknown) =>
  ((err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err)).slice(0, 200);

/** The Storage rows plus Storage 0 (ZM_DIR_EVENTS) when events without a usable row exist. */
export async function retentionTargets(prisma: PrismaClient, defaultEventsDir: string): Promise<StorageTarget[]> {
  const rows = await storageRows(prisma);
  const known = new Set(rows.map((r) => r.Id));
  const targets: StorageTarget[] = rows.map((r) => ({
    id: r.Id,
    name: r.Name,
    root: r.Path || defaultEventsDir,
    doDelete: r.DoDelete,
  }));
  const orphaned = (await eventStorageIds(prisma)).some((id) => id === DEFAULT_STORAGE_ID || !known.has(id));
  if (orphaned && !known.has(DEFAULT_STORAGE_ID)) {
    targets.unshift({ id: DEFAULT_STORAGE_ID, name: '(ZM_DIR_EVENTS)', root: defaultEventsDir, doDelete: true });
  }
  return targets;
}

function emptyMeasured(): Measured {
  return {
    free_bytes: null,
    total_bytes: null,
    floor_bytes: null,
    used_bytes: null,
    events: null,
    events_without_disk_space: null,
  };
}

/** Which limits a Storage breaches now, for the event at hand (max_age is per event). */
export function breachedLimits(
  limits: StorageLimits,
  m: Measured,
  start: Date | null,
  cutoff: Date | null,
): LimitName[] {
  const out: LimitName[] = [];
  if (m.floor_bytes !== null && m.free_bytes !== null && m.free_bytes < m.floor_bytes) out.push('free_space_floor');
  if (limits.quotaBytes !== null && m.used_bytes !== null && m.used_bytes > limits.quotaBytes) out.push('quota');
  if (cutoff && start && start.getTime() < cutoff.getTime()) out.push('max_age');
  return LIMIT_ORDER.filter((l) => out.includes(l));
}

/** One Storage as inspected: its report, limits, the events query, and the real root and device. */
export interface Inspected {
  report: StorageReport;
  limits: StorageLimits;
  cond: { sql: string; params: unknown[] };
  realRoot: string | null;
  dev: number | null;
}

/**
 * Looks at one Storage without changing anything: limits, the checks that make a pass refuse
 * it, and the measured figures. The status route shows exactly this.
 */
export async function inspectStorage(
  deps: InspectDeps,
  volume: VolumeMeter,
  target: StorageTarget,
  known: number[],
): Promise<Inspected> {
  const limits = limitsFor(deps.config, { id: target.id, name: target.name });
  const report: StorageReport = {
    storage_id: target.id,
    name: target.name,
    path: target.root,
    do_delete: target.doDelete,
    limits: limits.text,
    override: limits.override,
    state: 'ok',
    reason: null,
    measured: emptyMeasured(),
    breached: [],
    deleted: 0,
    bytes_freed: 0,
    kept: 0,
  };
  const cond = storageCondition(target.id, known);
  const out: Inspected = { report, limits, cond, realRoot: null, dev: null };
  const stop = (state: StorageState, reason: string) => {
    report.state = state;
    report.reason = reason;
    return out;
  };
  if (!limits.freeSpaceFloor && limits.maxAgeSeconds === null && limits.quotaBytes === null)
    return stop('no_limits', 'no retention limit is set for this storage');
  if (!target.doDelete) return stop('skipped', 'DoDelete is 0: its events are never deleted by retention');
  if (!isSafeRoot(target.root)) return stop('refused', 'the storage path is not an absolute path');
  let st;
  try {
    st = await fsp.stat(target.root);
  } catch (err) {
    return stop('refused', `the storage path cannot be read (${errText(err)}); is it mounted?`);
  }
  if (!st.isDirectory()) return stop('refused', 'the storage path is not a directory');
  const usage = await storageUsage(deps.prisma, cond);
  report.measured.events = usage.events;
  report.measured.events_without_disk_space = usage.unknown;
  if (limits.quotaBytes !== null) report.measured.used_bytes = usage.bytes;
  if (usage.events > 0) {
    const names = await fsp.readdir(target.root, { withFileTypes: true }).catch(() => []);
    if (!names.some((e) => /^\d+$/.test(e.name) && (e.isDirectory() || e.isSymbolicLink()))) {
      return stop(
        'refused',
        'the storage path holds no monitor folder although the database lists events there; is it mounted?',
      );
    }
  }
  out.realRoot = await fsp.realpath(target.root);
  out.dev = Number(st.dev);
  try {
    const v = await volume(target.root);
    report.measured.free_bytes = v.free;
    report.measured.total_bytes = v.total;
    if (limits.freeSpaceFloor) report.measured.floor_bytes = floorBytes(limits.freeSpaceFloor, v.total);
  } catch (err) {
    return stop('error', `the free space of the storage could not be measured (${errText(err)}); skipped`);
  }
  report.breached = breachedLimits(limits, report.measured, null, null);
  return out;
}
