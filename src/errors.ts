// The one error hierarchy. Every failure that reaches a client is an ApiError, rendered as
// the AppResponseError envelope {kind, error_message, code, details}.

/** `details` is a list of [name, value] string pairs, as v3 clients expect. */
export type ErrorDetails = Array<[string, string]>;

export interface ErrorEnvelope {
  kind: string;
  error_message: string;
  code: number | null;
  details: ErrorDetails;
}

/** Marks an ApiError whichever copy of this module made it (see hasInstance below). */
const BRAND = Symbol.for('zmgate.ApiError');

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
    readonly details: ErrorDetails = [],
    readonly code: number | null = null,
  ) {
    super(message);
    this.name = new.target.name;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /**
   * `instanceof` also recognises an error made by a second copy of this module: the Prisma client
   * is loaded with require() (src/db/lazy-prisma.ts), which under the test runner's loader (tsx)
   * evaluates this file again. A subclass is recognised by its name.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (!value || typeof value !== 'object' || (value as Record<symbol, unknown>)[BRAND] !== true) return false;
    return this.name === 'ApiError' || (value as Error).name === this.name;
  }

  toEnvelope(): ErrorEnvelope {
    return { kind: this.kind, error_message: this.message, code: this.code, details: this.details };
  }
}

export class InvalidInputError extends ApiError {
  constructor(message = 'Invalid input', details: ErrorDetails = []) {
    super(400, 'INVALID_INPUT_ERROR', message, details);
  }
}

export class BadRequestError extends ApiError {
  constructor(message: string, details: ErrorDetails = []) {
    super(400, 'BAD_REQUEST_ERROR', message, details);
  }
}

/** A value longer than its column: names the column only, never the value or the SQL. */
export class ValueTooLongError extends ApiError {
  constructor(column: string) {
    super(400, 'VALUE_TOO_LONG', `Value too long for ${column}`, [['field', column]]);
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'Authentication required', details: ErrorDetails = []) {
    super(401, 'UNAUTHORIZED_ERROR', message, details);
  }
}

export class PermissionDeniedError extends ApiError {
  constructor(message = 'Permission denied', details: ErrorDetails = []) {
    super(403, 'PERMISSION_DENIED_ERROR', message, details);
  }
}

/** Resource ordinals carried in `code` by the `<RESOURCE>_NOT_FOUND_ERROR` kinds. */
export const NotFoundResource = {
  USER: 0,
  FILE: 1,
  SESSION: 2,
  MESSAGE: 3,
  MONITOR: 4,
  CONFIG: 5,
  EVENT_TAG: 6,
  EVENT_SUMMARY: 7,
  EVENT: 8,
} as const;
export type NotFoundResourceName = keyof typeof NotFoundResource;

export class NotFoundError extends ApiError {
  constructor(message = 'Not found', details: ErrorDetails = [], resource?: NotFoundResourceName) {
    super(
      404,
      resource ? `${resource}_NOT_FOUND_ERROR` : 'NOT_FOUND_ERROR',
      message,
      details,
      resource ? NotFoundResource[resource] : null,
    );
  }
}

/**
 * The 404 of a row looked up by id: "<Kind> <id> not found", details `id`. `resource` picks the
 * `<RESOURCE>_NOT_FOUND_ERROR` kind and code the reference answers for that route
 * (test/contract/reference-errors.ts); without it the kind is NOT_FOUND_ERROR, code null.
 */
export function notFound(kind: string, id: number | bigint | string, resource?: NotFoundResourceName): NotFoundError {
  return new NotFoundError(`${kind} ${id} not found`, [['id', String(id)]], resource);
}

export class MethodNotAllowedError extends ApiError {
  constructor(readonly allowed: string[]) {
    super(405, 'METHOD_NOT_ALLOWED_ERROR', 'Method not allowed', [['allow', allowed.join(', ')]]);
  }
}

export class ConflictError extends ApiError {
  constructor(message: string, details: ErrorDetails = []) {
    super(409, 'CONFLICT_ERROR', message, details);
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'PAYLOAD_TOO_LARGE_ERROR', `Request body exceeds ${limitBytes} bytes`, [
      ['limit_bytes', String(limitBytes)],
    ]);
  }
}

/** 416: a byte range that starts beyond the end of the body (the caller sets `Content-Range: bytes *\/size`). */
export class RangeNotSatisfiableError extends ApiError {
  constructor(size: number) {
    super(416, 'RANGE_NOT_SATISFIABLE_ERROR', 'Requested range not satisfiable', [
      ['size', String(size)],
      ['reason', 'the range starts beyond the end of the file'],
    ]);
  }
}

export class TooManyRequestsError extends ApiError {
  constructor(message = 'Too many requests') {
    super(429, 'TOO_MANY_REQUESTS_ERROR', message);
  }
}

export class InternalError extends ApiError {
  constructor(message = 'Internal server error') {
    super(500, 'INTERNAL_SERVER_ERROR', message);
  }
}

/** A database failure. The message is generic on purpose: no SQL, values or driver text. */
export class DatabaseError extends ApiError {
  constructor(message = 'Database error') {
    super(500, 'DATABASE_ERROR', message);
  }
}

export class ServiceUnavailableError extends ApiError {
  constructor(
    message = 'Service unavailable',
    details: ErrorDetails = [],
    /** Sent as Retry-After when set. */
    readonly retryAfterSecs: number | null = null,
  ) {
    super(503, 'SERVICE_UNAVAILABLE_ERROR', message, details);
  }
}

/** The database cannot be reached or does not answer in time: worth retrying shortly. */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  constructor() {
    super('Database unavailable; retry shortly', [['database', 'unavailable']], 5);
  }
}

/** The host that owns the monitor or recording could not be reached, or broke off (multi-server). */
export class BadGatewayError extends ApiError {
  constructor(message: string, details: ErrorDetails = []) {
    super(502, 'BAD_GATEWAY_ERROR', message, details);
  }
}

/** The owning host did not answer in time (multi-server). */
export class GatewayTimeoutError extends ApiError {
  constructor(message: string, details: ErrorDetails = []) {
    super(504, 'GATEWAY_TIMEOUT_ERROR', message, details);
  }
}
