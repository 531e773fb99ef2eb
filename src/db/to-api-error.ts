// Maps any thrown value to the ApiError a client is told: the service's own errors as they are,
// and what the database driver, Prisma, tsoa's validation and the body parser throw, translated
// without ever passing on SQL, paths or stacks. Used by the HTTP error handler and by the WebRTC
// signalling (which answers on a WebSocket).
import {
  ApiError,
  BadRequestError,
  ConflictError,
  DatabaseError,
  DatabaseUnavailableError,
  InternalError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  ValueTooLongError,
  type ErrorDetails,
} from '../errors.js';
import { isCollationMismatch, unstorableTextColumn, unstorableValueColumn } from './charset-errors.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
  expose?: boolean;
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
  meta?: {
    column_name?: string;
    target?: unknown;
    modelName?: string;
    driverAdapterError?: { cause?: { originalCode?: string; originalMessage?: string; column?: string } };
  };
}

function isPrismaError(err: unknown): err is PrismaLikeError {
  return err instanceof Error && err.name.startsWith('PrismaClient');
}

/**
 * A table or column the route needs does not exist: a database an older ZoneMinder (1.36, 1.38)
 * still owns, or a 1.39 one not brought up to date. `zmgate-db status` says which and what to do.
 */
function schemaIncomplete(): ApiError {
  return new ServiceUnavailableError(
    "This route needs a table or column this ZoneMinder database does not have (ZoneMinder before 1.39, or a 1.39 database 'zmgate-db bridge' has not brought up to date); 'zmgate-db status' says which",
    [['database', 'schema incomplete']],
  );
}

const ER_NO_SUCH_TABLE = 1146;
const ER_BAD_FIELD_ERROR = 1054;

/** Prisma's known errors mapped to what a client can act on; anything else is a database error. */
function prismaToApiError(err: PrismaLikeError): ApiError {
  const cause = err.meta?.driverAdapterError?.cause;
  if (err.code === 'P2000' || cause?.originalCode === String(ER_DATA_TOO_LONG)) {
    const column =
      err.meta?.column_name ?? cause?.column ?? /column '([^']+)'/.exec(cause?.originalMessage ?? '')?.[1] ?? 'unknown';
    return new ValueTooLongError(column);
  }
  // A raw query (P2010) on a table or column that a 1.36 database lacks before the bridge.
  if (cause?.originalCode === String(ER_NO_SUCH_TABLE) || cause?.originalCode === String(ER_BAD_FIELD_ERROR))
    return schemaIncomplete();
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

// Failures that say "the database cannot be reached or does not answer", not "this request is
// wrong": the driver's connection errors (45001-45065 range: closed, refused, timed out, pool
// exhausted or closed) and the server's own (too many connections, shutting down, gone away).
const UNAVAILABLE_ERRNOS = new Set([
  1040, 1053, 1077, 1152, 1158, 1159, 1160, 1161, 2002, 2003, 2006, 2013, 45001, 45004, 45009, 45012, 45013, 45019,
  45026, 45027, 45028, 45035, 45037, 45039, 45042, 45061,
]);
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'ER_ZMGATE_QUERY_TIMEOUT',
  'ER_ZMGATE_DB_UNAVAILABLE',
]);
// Prisma's codes for an unreachable server, a connection that went away, and a pool timeout.
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** True when `err` (or anything in its cause chain) says the database is unavailable. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const x = e as {
      errno?: unknown;
      code?: unknown;
      fatal?: unknown;
      name?: unknown;
      meta?: PrismaLikeError['meta'];
      cause?: unknown;
    };
    if (typeof x.errno === 'number' && UNAVAILABLE_ERRNOS.has(x.errno)) return true;
    if (typeof x.code === 'string' && (UNAVAILABLE_CODES.has(x.code) || UNAVAILABLE_PRISMA.has(x.code))) return true;
    if (x.fatal === true && x.name === 'SqlError') return true;
    const original = Number(x.meta?.driverAdapterError?.cause?.originalCode);
    if (UNAVAILABLE_ERRNOS.has(original)) return true;
    e = x.meta?.driverAdapterError ?? x.cause;
  }
  return false;
}

/** Maps any thrown value to the ApiError that describes it to a client. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isDatabaseUnavailable(err)) return new DatabaseUnavailableError();
  const column = unstorableTextColumn(err);
  if (column !== null) {
    return new InvalidInputError(`Text not storable in ${column}: characters outside the column's character set`, [
      ['field', column],
    ]);
  }
  const refused = unstorableValueColumn(err);
  if (refused !== null) {
    return new InvalidInputError(`Value not storable in ${refused} on this ZoneMinder version's schema`, [
      ['field', refused],
    ]);
  }
  if (isCollationMismatch(err)) {
    return new InvalidInputError("Text outside the column's character set", [['field', 'unknown']]);
  }
  if (isTsoaValidateError(err)) {
    const details: ErrorDetails = Object.entries(err.fields).map(([field, f]) => [
      field.replace(/^(body|query|path|header)\./, '').replace(/^requestBody\.?/, 'body'),
      f.message,
    ]);
    return new InvalidInputError('Invalid input', details);
  }
  const bp = err as BodyParserError;
  if (bp instanceof Error && typeof bp.type === 'string') {
    if (bp.type === 'entity.parse.failed')
      return new InvalidInputError('Malformed JSON body', [['body', 'malformed JSON']]);
    if (bp.type === 'entity.too.large') return new PayloadTooLargeError(bp.limit ?? 0);
    if (typeof bp.status === 'number' && bp.status >= 400 && bp.status < 500) {
      return new BadRequestError('Unreadable request body', [['body', bp.type]]);
    }
  }
  // A body whose Content-Encoding does not decode (corrupt gzip, deflate or br): the body parser
  // passes zlib's error on as an exposed 400 without a type.
  if (bp instanceof Error && bp.status === 400 && bp.expose === true) {
    return new BadRequestError('Unreadable request body', [['body', 'content encoding does not decode']]);
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
