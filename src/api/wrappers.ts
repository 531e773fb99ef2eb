// Scalar schema types of the v3 reference surface that several resource families share.
// Names match the reference schemas, so the OpenAPI components carry the same names.

/**
 * An instant in ISO 8601 / RFC 3339 with `Z`, e.g. `2026-11-22T07:53:58Z`. Event start and end
 * times are ZoneMinder local wall-clock values converted with ZoneMinder's time zone.
 * @format date-time
 * @example "2026-11-22T07:53:58Z"
 */
export type DateTimeWrapper = string;

/**
 * The start of a counting bucket, as an instant with `Z` (see DateTimeWrapper).
 * @format date-time
 * @example "2026-11-22T07:00:00Z"
 */
export type NaiveDateTimeWrapper = string;

/**
 * A decimal number as a string in plain notation, e.g. `"579.93"`.
 * @pattern ^-?\d+(\.\d+)?$
 * @example "579.93"
 */
export type DecimalWrapper = string;

/** A storage layout scheme: `Deep`, `Medium` or `Shallow`. */
export type SchemeWrapper = string;

/** Image orientation, as ZoneMinder stores it. */
export type Orientation = 'ROTATE_0' | 'ROTATE_90' | 'ROTATE_180' | 'ROTATE_270' | 'FLIP_HORI' | 'FLIP_VERT';

/** `asc` or `desc`. */
export type SortDirection = 'asc' | 'desc';
