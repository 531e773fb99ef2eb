// Response shapes shared by many routes. Names match the v3 reference surface.

/** The error envelope of every non-2xx JSON answer. */
export interface AppResponseError {
  /** Stable machine-readable code, e.g. `INVALID_INPUT_ERROR`. */
  kind: string;
  error_message: string;
  /**
   * Resource ordinal for `<RESOURCE>_NOT_FOUND_ERROR` kinds, otherwise null.
   * @isInt
   */
  code?: number | null;
  /** `[name, value]` pairs naming the offending fields. */
  details: string[][];
}

export interface MessageResponse {
  message: string;
}

/**
 * A local wall-clock timestamp as ZoneMinder stores it: no offset, not RFC 3339.
 * @pattern ^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$
 * @example "2026-11-22T08:53:58"
 */
export type LocalDateTime = string;
