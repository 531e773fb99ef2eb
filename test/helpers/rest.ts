// A logged-in JSON client for REST family tests: users are created with their password as the
// stored bcrypt hash (cost 4, fast) and logged in through /auth/login like a real client.
import bcrypt from 'bcryptjs';
import { request, type JsonResponse } from './http.js';
import type { FreshDatabase } from './mariadb.js';
import { insertUser, type TestUser } from './zmdb.js';

/** Anything that maps an API path to a URL (startTestApp, startAppWithAcl). */
export interface ApiBase {
  api(path: string): string;
}

export type Call = (method: string, path: string, body?: unknown) => Promise<JsonResponse<any>>;

/** Inserts a user whose password equals the username. Returns the user's id. */
export function addUser(db: FreshDatabase, username: string, perms: TestUser['perms'], extra: Partial<TestUser> = {}): Promise<number> {
  return insertUser(db, { username, password: username, stored: bcrypt.hashSync(username, 4), perms, ...extra });
}

export async function login(app: ApiBase, username: string, password = username): Promise<string> {
  const res = await request(app.api('/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${res.text}`);
  return (res.body as { access_token: string }).access_token;
}

/** JSON calls with a Bearer token; `body` undefined sends no body. */
export function caller(app: ApiBase, token: string): Call {
  return (method, path, body) =>
    request(app.api(path), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

/** The field names of an error envelope's details. */
export const fields = (body: any): string[] => (Array.isArray(body?.details) ? body.details.map((d: string[]) => d[0]) : []);
