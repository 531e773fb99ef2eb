// tsoa stores the result of expressAuthentication on req.user; this gives it its type. The route
// table (src/http/media-table.ts) marks the requests that may carry their token as `?token=`.
import { UnauthorizedError } from '../errors.js';
import type { AuthUser } from './auth-service.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      user?: AuthUser;
      queryTokenAllowed?: boolean;
    }
  }
}

/** The authenticated caller of a route behind the auth gate (a missing user is a 401, never a crash). */
export function currentUser(req: Express.Request): AuthUser {
  if (!req.user) throw new UnauthorizedError('Missing Authorization header');
  return req.user;
}
