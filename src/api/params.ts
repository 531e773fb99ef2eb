// The scalar types of path and query parameters that nearly every route repeats: a row id and
// the two paging parameters. tsoa reads the validators from these aliases, so each controller
// states the kind of a parameter, not its range; scripts/openapi-post.mjs inlines them into each
// parameter, so the published document keeps one schema per parameter as before.

/**
 * @isInt must be an integer >= 0
 * @minimum 0
 * @maximum 2147483647
 */
export type Id = number;

// A BIGINT row id (Events, Frames and the rows that point at them).
/**
 * @isLong must be an integer >= 0
 * @minimum 0
 * @maximum 9007199254740991
 */
export type BigId = number;

/**
 * 1-based page number (default 1).
 * @isLong
 * @minimum 0
 * @maximum 9007199254740991
 */
export type PageNumber = number;

/**
 * Rows per page, at most 1000 (default 25).
 * @isLong
 * @minimum 0
 * @maximum 1000
 */
export type PageSize = number;
