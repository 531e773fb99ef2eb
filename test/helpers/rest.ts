// A logged-in JSON client for REST family tests: users are created with their password as the
// stored bcrypt hash (cost 4, fast) and logged in through /auth/login like a real client.
import type { ExecutionContext } from 'ava';
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
export function addUser(
  db: FreshDatabase,
  username: string,
  perms: TestUser['perms'],
  extra: Partial<TestUser> = {},
): Promise<number> {
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
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

/** The field names of an error envelope's details. */
export const fields = (body: any): string[] =>
  Array.isArray(body?.details) ? body.details.map((d: string[]) => d[0]) : [];

/**
 * The paging contract of a list route: defaults (page 1, 25 rows), page 0 read as 1, a second
 * page, page_size up to 1000, a stray `per_page` ignored, and bad values refused with 400 naming
 * the parameter. `path` may carry its own query. Needs at least 3 rows to see a partial page.
 */
export async function checkPaging(t: ExecutionContext, call: Call, path: string): Promise<void> {
  const q = (extra: string) => `${path}${path.includes('?') ? '&' : '?'}${extra}`;
  const first = await call('GET', q('per_page=1000'));
  t.is(first.status, 200, `${path}: ${first.text}`);
  const total = first.body.total as number;
  t.true(total >= 3, `${path}: paging needs at least 3 rows, has ${total}`);
  t.like(first.body, { per_page: 25, current_page: 1, last_page: Math.max(1, Math.ceil(total / 25)) });
  t.is(first.body.items.length, Math.min(25, total));
  const second = await call('GET', q('page=2&page_size=2'));
  t.like(second.body, { total, per_page: 2, current_page: 2, last_page: Math.ceil(total / 2) });
  t.deepEqual(
    second.body.items,
    (await call('GET', q('page_size=1000'))).body.items.slice(2, 4),
    `${path}: page 2 = rows 3-4`,
  );
  t.is((await call('GET', q('page=0&page_size=1'))).body.current_page, 1);
  for (const bad of [
    'page_size=1001',
    'page_size=abc',
    'page_size=-1',
    'page=-1',
    'page=x',
    'page=99999999999999999999',
  ]) {
    const res = await call('GET', q(bad));
    t.is(res.status, 400, `${path} ${bad}`);
    t.is(res.body.kind, 'INVALID_INPUT_ERROR');
    t.true(fields(res.body).includes(bad.split('=')[0]), `${path} ${bad}: ${JSON.stringify(res.body.details)}`);
  }
}

/** Path ids that are not int32 integers >= 0 are a 400 naming the parameter on every method (never a 500). */
export async function checkBadIds(
  t: ExecutionContext,
  call: Call,
  base: string,
  param = 'id',
  bad = ['abc', '-1', '1.5', '2147483648', '99999999999999999999'],
): Promise<void> {
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    for (const id of bad) {
      const res = await call(method, `${base}/${id}`, method === 'PATCH' ? {} : undefined);
      if (res.status === 405) continue; // the family has no such method
      t.is(res.status, 400, `${method} ${base}/${id}`);
      t.true(fields(res.body).includes(param), `${method} ${base}/${id}: ${JSON.stringify(res.body?.details)}`);
    }
  }
}
