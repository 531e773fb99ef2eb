// The paginated envelope of every v3 list: {items, total, per_page, current_page, last_page}.
// `page` is 1-based (0 reads as 1), `page_size` defaults to 25 (0 reads as 25) and is capped at 1000;
// strictPageRequest refuses the zeros.
import { InvalidInputError } from '../errors.js';

export interface Page<T> {
  items: T[];
  /**
   * @isLong
   * @minimum 0
   */
  total: number;
  /**
   * @isLong
   * @minimum 0
   */
  per_page: number;
  /**
   * @isLong
   * @minimum 0
   */
  current_page: number;
  /**
   * @isLong
   * @minimum 0
   */
  last_page: number;
}

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 1000;

export interface PageRequest {
  page: number;
  pageSize: number;
  skip: number;
  take: number;
}

export function pageRequest(page?: number, pageSize?: number): PageRequest {
  const size = pageSize === undefined || pageSize === 0 ? DEFAULT_PAGE_SIZE : pageSize;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) {
    throw new InvalidInputError('Invalid input', [['page_size', `must be an integer 1..${MAX_PAGE_SIZE}`]]);
  }
  const p = page === undefined || page === 0 ? 1 : page;
  // Beyond 2^53 a page number is no longer exact, and the row offset would overflow the
  // database driver's integer (a 500): such a page cannot exist, so it is refused.
  if (!Number.isSafeInteger(p) || p < 1 || !Number.isSafeInteger((p - 1) * size)) {
    throw new InvalidInputError('Invalid input', [['page', 'must be an integer >= 1 whose row offset is below 2^53']]);
  }
  return { page: p, pageSize: size, skip: (p - 1) * size, take: size };
}

/**
 * pageRequest for the lists whose reference handler validates its paging (logs, configs, events):
 * page 0 and page_size 0 are a 400 naming the parameter, not the defaults.
 */
export function strictPageRequest(page?: number, pageSize?: number): PageRequest {
  if (pageSize === 0)
    throw new InvalidInputError('Invalid input', [['page_size', `must be an integer 1..${MAX_PAGE_SIZE}`]]);
  if (page === 0) throw new InvalidInputError('Invalid input', [['page', 'must be an integer >= 1']]);
  return pageRequest(page, pageSize);
}

export function pageOf<T>(items: T[], total: number, req: PageRequest): Page<T> {
  return {
    items,
    total,
    per_page: req.pageSize,
    current_page: req.page,
    last_page: Math.max(1, Math.ceil(total / req.pageSize)),
  };
}

/** One page of a list: the page's rows and the total, queried together, then mapped. */
export async function listPage<R, T>(
  req: PageRequest,
  rows: Promise<R[]>,
  total: Promise<number>,
  map: (row: R) => T,
): Promise<Page<T>> {
  const [found, count] = await Promise.all([rows, total]);
  return pageOf(found.map(map), count, req);
}
