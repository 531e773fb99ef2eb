// tsoa's hook for @Security('jwt'). Token verification arrives with the auth issue; until then
// every protected route is refused with 401 rather than served unauthenticated.
import type { Request } from 'express';
import { UnauthorizedError } from '../errors.js';

export async function expressAuthentication(
  _request: Request,
  securityName: string,
  _scopes?: string[],
): Promise<unknown> {
  if (securityName !== 'jwt') throw new UnauthorizedError(`Unknown security scheme ${securityName}`);
  throw new UnauthorizedError('Missing Authorization header');
}
