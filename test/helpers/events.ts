// Seeding and calling helpers for the event-family tests (test/events/).
import bcrypt from 'bcryptjs';
import type { AuthUser } from '../../src/auth/auth-service.js';
import type { MonitorAcl, MonitorScope } from '../../src/auth/monitor-acl.js';
import { createPrismaClient, type PrismaClient } from '../../src/db/prisma.js';
import type { TestApp } from './app.js';
import { request } from './http.js';
import { dbConfigFor, type FreshDatabase } from './mariadb.js';
import { insertUser } from './zmdb.js';

export async function sql(db: FreshDatabase, text: string, params: unknown[] = []): Promise<any[]> {
  return db.db.query(text, params, db.name);
}

export async function insertMonitor(
  db: FreshDatabase,
  id: number,
  name = `Cam ${id}`,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const cols = ['Id', 'Name', ...Object.keys(extra)];
  await sql(db, `INSERT INTO Monitors (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, [
    id,
    name,
    ...Object.values(extra),
  ]);
}

export async function insertStorage(
  db: FreshDatabase,
  s: { id: number; path: string; scheme?: string; doDelete?: number; type?: string; diskSpace?: number | null },
): Promise<void> {
  await sql(
    db,
    'INSERT INTO Storage (Id, Path, Name, Scheme, DoDelete, Type, DiskSpace) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [s.id, s.path, `Storage ${s.id}`, s.scheme ?? 'Medium', s.doDelete ?? 1, s.type ?? 'local', s.diskSpace ?? null],
  );
}

export interface EventSeed {
  id?: number;
  monitorId: number;
  name?: string;
  cause?: string | null;
  notes?: string | null;
  start?: string | null;
  end?: string | null;
  storageId?: number | null;
  scheme?: 'Deep' | 'Medium' | 'Shallow';
  length?: string;
  frames?: number | null;
  alarmFrames?: number | null;
  totScore?: number;
  avgScore?: number | null;
  maxScore?: number | null;
  archived?: number;
  locked?: number;
  diskSpace?: number | null;
}

/** Inserts an Events row as ZoneMinder leaves a closed event (no bucket rows). Returns its id. */
export async function insertEvent(db: FreshDatabase, e: EventSeed): Promise<number> {
  const row: Record<string, unknown> = {
    ...(e.id !== undefined && { Id: e.id }),
    MonitorId: e.monitorId,
    Name: e.name ?? 'Event',
    Cause: e.cause ?? null,
    Notes: e.notes ?? null,
    StartDateTime: e.start === undefined ? '2026-01-15 10:00:00' : e.start,
    EndDateTime: e.end === undefined ? '2026-01-15 10:01:00' : e.end,
    StorageId: e.storageId === undefined ? 0 : e.storageId,
    Scheme: e.scheme ?? 'Medium',
    Length: e.length ?? '60.00',
    Frames: e.frames === undefined ? 100 : e.frames,
    AlarmFrames: e.alarmFrames === undefined ? 5 : e.alarmFrames,
    TotScore: e.totScore ?? 50,
    AvgScore: e.avgScore === undefined ? 10 : e.avgScore,
    MaxScore: e.maxScore === undefined ? 20 : e.maxScore,
    Archived: e.archived ?? 0,
    Locked: e.locked ?? 0,
    DiskSpace: e.diskSpace === undefined ? null : e.diskSpace,
    StateId: 0,
  };
  const cols = Object.keys(row);
  const [{ Id }] = await sql(
    db,
    `INSERT INTO Events (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) RETURNING Id`,
    Object.values(row),
  );
  return Number(Id);
}

/** Creates users named after their permission level on Events (password = name). */
export async function insertEventUsers(db: FreshDatabase): Promise<void> {
  for (const [name, level] of [
    ['evedit', 'Edit'],
    ['evview', 'View'],
    ['evnone', 'None'],
  ] as const) {
    await insertUser(db, {
      username: name,
      password: name,
      stored: bcrypt.hashSync(name, 4),
      perms: { Events: level, Monitors: 'View' },
    });
  }
}

export async function login(app: TestApp, name: string): Promise<string> {
  const res = await request(app.api('/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: name, password: name }),
  });
  if (res.status !== 200) throw new Error(`login ${name}: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

export function caller(app: TestApp, token: string) {
  return (method: string, path: string, body?: unknown, as = token) =>
    request(app.api(path), {
      method,
      headers: { authorization: `Bearer ${as}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

export function prismaFor(db: FreshDatabase): PrismaClient {
  return createPrismaClient(dbConfigFor(db, { idle_timeout_secs: 5 }));
}

/** A MonitorAcl that returns a fixed scope, for ACL tests at the service level. */
export function stubAcl(visible: number[] | null): MonitorAcl {
  const scope: MonitorScope = { visible: visible ? new Set(visible) : null, editable: null };
  return {
    scope: async () => scope,
    groupScope: async () => ({ visible: null, editable: null }),
    invalidate: () => undefined,
  };
}

export const someUser: AuthUser = {
  id: 1,
  username: 'tester',
  perms: {
    system: 'Edit',
    stream: 'View',
    events: 'Edit',
    control: 'Edit',
    monitors: 'Edit',
    groups: 'Edit',
    devices: 'Edit',
    snapshots: 'Edit',
  } as AuthUser['perms'],
  issuedAt: 0,
  expiresAt: 0,
};

export async function summary(
  db: FreshDatabase,
  monitorId: number,
): Promise<Record<string, number | null> | undefined> {
  const [row] = await sql(db, 'SELECT * FROM Event_Summaries WHERE MonitorId = ?', [monitorId]);
  if (!row) return undefined;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? null : Number(v)]));
}
