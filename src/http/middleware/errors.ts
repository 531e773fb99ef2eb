// Turns every failure into the AppResponseError envelope. Anything that is not a known client
// error becomes a generic 500: no stack, SQL, path or secret ever reaches a body.
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import {
  ApiError,
  BadRequestError,
  ConflictError,
  DatabaseError,
  InternalError,
  InvalidInputError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  ValueTooLongError,
  type ErrorDetails,
} from '../../errors.js';
import type { Logger } from '../../log.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

interface TsoaValidateError extends Error {
  fields: Record<string, { message: string; value?: unknown }>;
}

interface SqlLikeError extends Error {
  sqlState?: string;
  errno?: number;
  code?: string;
}

function isTsoaValidateError(err: unknown): err is TsoaValidateError {
  return err instanceof Error && err.name === 'ValidateError' && typeof (err as TsoaValidateError).fields === 'object';
}

interface PrismaLikeError extends Error {
  code?: string;
  meta?: { column_name?: string; target?: unknown; modelName?: string; driverAdapterError?: { cause?: { originalCode?: string; originalMessage?: string; column?: string } } };
}

function isPrismaError(err: unknown): err is PrismaLikeError {
  return err instanceof Error && err.name.startsWith('PrismaClient');
}

/** A table or column the route needs does not exist yet (start-up migrations could not add it). */
function schemaIncomplete(): ApiError {
  return new ServiceUnavailableError('The database schema is incomplete for this route; run `zmgate-db bridge` (after a backup)', [
    ['database', 'schema incomplete'],
  ]);
}

const ER_NO_SUCH_TABLE = 1146;
const ER_BAD_FIELD_ERROR = 1054;

/** Prisma's known errors mapped to what a client can act on; anything else is a database error. */
function prismaToApiError(err: PrismaLikeError): ApiError {
  const cause = err.meta?.driverAdapterError?.cause;
  if (err.code === 'P2000' || cause?.originalCode === String(ER_DATA_TOO_LONG)) {
    const column = err.meta?.column_name ?? cause?.column ?? /column '([^']+)'/.exec(cause?.originalMessage ?? '')?.[1] ?? 'unknown';
    return new ValueTooLongError(column);
  }
  // A raw query (P2010) on a table or column that a 1.36 database lacks before the bridge.
  if (cause?.originalCode === String(ER_NO_SUCH_TABLE) || cause?.originalCode === String(ER_BAD_FIELD_ERROR)) return schemaIncomplete();
  switch (err.code) {
    case 'P2021':
    case 'P2022':
      return schemaIncomplete();
    case 'P2025':
    case 'P2001':
    case 'P2018':
      return new NotFoundError('Not found');
    case 'P2034':
      return new ConflictError('The change collided with a concurrent one; retry the request');
    case 'P2002':
      return new ConflictError('A record with the same unique value already exists');
    case 'P2003':
      return new ConflictError('The record is referenced by, or refers to, another record that prevents this change');
    case 'P2011':
    case 'P2012':
      return new InvalidInputError('Invalid input', [['body', 'a required value is missing']]);
    default:
      return new DatabaseError();
  }
}

function isSqlError(err: unknown): err is SqlLikeError {
  return err instanceof Error && (err.name === 'SqlError' || typeof (err as SqlLikeError).sqlState === 'string');
}

/** MariaDB ER_DATA_TOO_LONG names the column in its message; that name is all we pass on. */
const ER_DATA_TOO_LONG = 1406;

/** Maps any thrown value to the ApiError that describes it to a client. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isTsoaValidateError(err)) {
    const details: ErrorDetails = Object.entries(err.fields).map(([field, f]) => [
      field.replace(/^(body|query|path|header)\./, '').replace(/^requestBody\.?/, 'body'),
      f.message,
    ]);
    return new InvalidInputError('Invalid input', details);
  }
  const bp = err as BodyParserError;
  if (bp instanceof Error && typeof bp.type === 'string') {
    if (bp.type === 'entity.parse.failed') return new InvalidInputError('Malformed JSON body', [['body', 'malformed JSON']]);
    if (bp.type === 'entity.too.large') return new PayloadTooLargeError(bp.limit ?? 0);
    if (typeof bp.status === 'number' && bp.status >= 400 && bp.status < 500) {
      return new BadRequestError('Unreadable request body', [['body', bp.type]]);
    }
  }
  if (isPrismaError(err)) return prismaToApiError(err);
  if (isSqlError(err)) {
    if (err.errno === ER_NO_SUCH_TABLE || err.errno === ER_BAD_FIELD_ERROR) return schemaIncomplete();
    if (err.errno === ER_DATA_TOO_LONG) {
      const column = /column '([^']+)'/.exec(err.message)?.[1] ?? 'unknown';
      return new ValueTooLongError(column);
    }
    return new DatabaseError();
  }
  return new InternalError();
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const apiError = toApiError(err);
    if (apiError.status >= 500) {
      log.error({ err, req_id: res.locals.reqId, method: req.method, path: req.path }, 'request failed');
    }
    if (apiError instanceof MethodNotAllowedError) res.setHeader('Allow', apiError.allowed.join(', '));
    res.status(apiError.status).json(apiError.toEnvelope());
  };
}

interface RouteLayer {
  route?: { _methods?: () => string[]; methods?: Record<string, boolean> };
  match?: (path: string) => boolean;
}

/** Methods registered for `path` on the app's router (empty when the path is unknown). */
function methodsFor(app: Express, path: string): string[] {
  const stack = (app as unknown as { router?: { stack?: RouteLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || typeof layer.match !== 'function' || !layer.match(path)) continue;
    for (const [m, on] of Object.entries(layer.route.methods ?? {})) if (on && m !== '_all') methods.add(m.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** Unmatched requests: 405 when the path exists under another method, else a JSON 404. */
export function notFoundOrWrongMethod(app: Express): RequestHandler {
  return (req, _res, next) => {
    const allowed = methodsFor(app, req.path);
    if (allowed.length > 0 && !allowed.includes(req.method)) return next(new MethodNotAllowedError(allowed));
    next(new NotFoundError(`No route for ${req.method} ${req.path.slice(0, 200)}`, [['path', req.path.slice(0, 200)]]));
  };
}
