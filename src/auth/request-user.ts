// tsoa stores the result of expressAuthentication on req.user; this gives it its type.
import type { AuthUser } from './auth-service.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      user?: AuthUser;
    }
  }
}

export {};
