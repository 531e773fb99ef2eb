// tsoa's hook for @Security('jwt', [scope]) and the same check for plain express routes:
// token from the Authorization header (or `?token=` where the route table allows it), verified against the
// user's current state, then the route's feature policy (403 when the level is missing).
import type { Request, RequestHandler } from 'express';
import { InternalError, PermissionDeniedError, UnauthorizedError } from '../errors.js';
import type { Services } from '../registry.js';
import type { AuthUser } from './auth-service.js';
import './request-user.js';
import { allows } from './permissions.js';
import { parsePolicy, requiredLevel } from './policy.js';

/** The token of an `Authorization: Bearer …` header; 401 when the header has another form. */
export function bearerToken(header: string): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new UnauthorizedError('Malformed Authorization header');
  return match[1];
}

function tokenOf(req: Request): string {
  const header = req.headers.authorization;
  if (header !== undefined) return bearerToken(header);
  const query = req.query.token;
  if (query !== undefined) {
    if (!req.queryTokenAllowed) {
      throw new UnauthorizedError(
        'The token query parameter is accepted on media routes only; use the Authorization header',
      );
    }
    if (typeof query === 'string' && query !== '') return query;
  }
  throw new UnauthorizedError('Missing Authorization header');
}

export async function authorize(req: Request, scope: string | undefined): Promise<AuthUser> {
  return authorizeToken(req.app.locals.services as Services, tokenOf(req), scope, req.method);
}

/** The check itself, for a token already taken from the request (also the hot-read lane's). */
export async function authorizeToken(
  services: Services,
  token: string,
  scope: string | undefined,
  method: string,
): Promise<AuthUser> {
  const policy = scope === undefined ? null : parsePolicy(scope);
  // A route without a valid policy is a programming error: refuse rather than serve it open.
  if (!policy) throw new InternalError('Route has no access policy');
  const user = await services.auth.authenticate(token);
  if (policy.feature) {
    const level = requiredLevel(policy, method);
    if (!allows(user.perms, policy.feature, level)) {
      throw new PermissionDeniedError(`${level} permission on ${policy.feature} required`, [
        ['feature', policy.feature],
        ['required', level],
      ]);
    }
  }
  return user;
}

export async function expressAuthentication(req: Request, securityName: string, scopes?: string[]): Promise<AuthUser> {
  if (securityName !== 'jwt' || !scopes || scopes.length !== 1) throw new InternalError('Route has no access policy');
  return authorize(req, scopes[0]);
}

/** The same check for routes outside tsoa (media). Sets req.user. */
export function requirePolicy(scope: string): RequestHandler {
  if (!parsePolicy(scope)) throw new Error(`invalid policy ${scope}`);
  return (req, _res, next) => {
    authorize(req, scope).then((user) => {
      req.user = user;
      next();
    }, next);
  };
}
