// tsoa stores the result of expressAuthentication on req.user; this gives it its type. The route
// table (src/http/media-table.ts) marks the requests that may carry their token as `?token=`.
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

export {};
