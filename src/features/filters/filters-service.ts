// Saved event filters (the Filters table) and the filter preview.
//
// A filter's condition is stored as ZoneMinder stores it (Query_json, a flat term list), so
// zmfilter.pl and ZoneMinder's UI keep running filters saved here. Requests may give either the
// typed tree (`filter`, preferred; wins when both are given) or ZoneMinder's `query_json`; both
// are validated against the same closed lists of fields and operators and stored normalised.
// Responses carry both: `query_json` as stored and `filter`, the tree (null when the stored
// query uses something the tree cannot express, e.g. ZoneMinder's DiskPercent).
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import { allows } from '../../auth/permissions.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { LiveColumns } from '../../db/live-columns.js';
import { InvalidInputError, NotFoundError, PermissionDeniedError, type ErrorDetails } from '../../errors.js';
import type { Filters, Prisma } from '../../generated/prisma/client.js';
import { pageOf, pageRequest, type Page, listPage } from '../../api/pagination.js';
import { EVENT_COLUMNS, toEventResponse, type EventRow } from '../events/event-json.js';
import { ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import { inList } from '../../zm/event-visibility.js';
import { eventTagsOf, type PaginatedEventsResponse } from '../events/events-service.js';
import { compileFilter, type FilterQuery } from './filter-query.js';
import { filterToZmQuery, zmfilterUnsafeValues, zmJsonToFilter } from './filter-zm-json.js';
import type { Services } from '../../registry.js';
import type {
  CreateFilterRequest,
  EmailFormat,
  FilterFields,
  FilterResponse,
  UpdateFilterRequest,
} from '../../generated/dto/filters.js';
import { jsonToColumns, rowToJson } from '../field-table.js';
import { FILTER_FIELDS } from './filter-fields.js';

// FilterResponse, FilterFields, CreateFilterRequest, UpdateFilterRequest and EmailFormat are
// generated from filter-fields.ts.
export type { CreateFilterRequest, EmailFormat, FilterFields, FilterResponse, UpdateFilterRequest };

function storedFilter(json: string): FilterQuery | null {
  try {
    return zmJsonToFilter(json);
  } catch {
    return null;
  }
}

/** `filter` is derived: the stored Query_json as a tree. */
function toResponse(row: Filters): FilterResponse {
  return rowToJson(FILTER_FIELDS, row, {
    derived: { filter: storedFilter(row.Query_json) },
  }) as unknown as FilterResponse;
}

const notFound = (id: number) => new NotFoundError(`Filter ${id} not found`, [['id', String(id)]], 'MESSAGE');

/** MariaDB's "Got error … from regexp" (ER_REGEXP_ERROR), however the driver wraps it. */
function isRegexpError(err: unknown): boolean {
  const e = err as {
    message?: string;
    errno?: number;
    meta?: { driverAdapterError?: { cause?: { originalCode?: string; originalMessage?: string } } };
  };
  const cause = e?.meta?.driverAdapterError?.cause;
  return (
    e?.errno === 1139 ||
    cause?.originalCode === '1139' ||
    /from regexp/i.test(cause?.originalMessage ?? e?.message ?? '')
  );
}

export class FiltersService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): FiltersService {
    return new FiltersService(s.prisma, s.acl, s.get(ZoneMinderClock), s.columns);
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock>,
    /** The event columns an older ZoneMinder lacks read as their stand-ins (src/db/live-columns.ts). */
    private readonly columns?: LiveColumns,
  ) {}

  async list(page?: number, pageSize?: number): Promise<Page<FilterResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.filters.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.filters.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<FilterResponse> {
    return toResponse(await this.row(id));
  }

  async create(user: AuthUser, body: CreateFilterRequest): Promise<FilterResponse> {
    this.checkExecute(user, body);
    const queryJson = await this.storedQuery(body);
    if (queryJson === undefined)
      throw new InvalidInputError('Invalid input', [['filter', 'filter or query_json is required']]);
    const row = await this.prisma.filters.create({
      data: {
        ...jsonToColumns(FILTER_FIELDS, body),
        Query_json: queryJson,
        UserId: body.user_id ?? user.id,
      } as Prisma.FiltersUncheckedCreateInput,
    });
    return toResponse(row);
  }

  async update(user: AuthUser, id: number, body: UpdateFilterRequest): Promise<FilterResponse> {
    await this.row(id);
    this.checkExecute(user, body);
    const queryJson = await this.storedQuery(body);
    const row = await this.prisma.filters.update({
      where: { Id: id },
      // The normalised condition replaces the query_json given (undefined: neither was given, unchanged).
      data: { ...jsonToColumns(FILTER_FIELDS, body), Query_json: queryJson },
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.row(id);
    await this.prisma.filters.delete({ where: { Id: id } });
  }

  /** The events a condition matches, of the monitors the caller may see, as the events list. */
  async preview(
    user: AuthUser,
    query: FilterQuery,
    page?: number,
    pageSize?: number,
  ): Promise<PaginatedEventsResponse> {
    const req = pageRequest(page, pageSize);
    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const compiled = compileFilter(query, clock);
    await this.checkRegexps(compiled.regexps);
    if (scope.visible && scope.visible.size === 0) return pageOf([], 0, req);

    const conditions = [`(${compiled.where})`];
    const params = [...compiled.params];
    if (scope.visible) {
      const visible = inList(scope.visible);
      conditions.unshift(`E.MonitorId IN ${visible.sql}`);
      params.unshift(...visible.params);
    }
    const from = `FROM Events E${compiled.monitor ? ' LEFT JOIN Monitors M ON M.Id = E.MonitorId' : ''} WHERE ${conditions.join(' AND ')}`;
    const limit = compiled.limit ?? Number.MAX_SAFE_INTEGER;
    const skip = Math.min(req.skip, Number.MAX_SAFE_INTEGER);
    const take = Math.max(0, Math.min(req.take, limit - skip));

    const [counted, ids] = await Promise.all([
      this.prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(`SELECT COUNT(*) AS n ${from}`, ...params),
      take > 0
        ? this.prisma.$queryRawUnsafe<Array<{ Id: bigint | number }>>(
            `SELECT E.Id ${from} ${compiled.orderBy} LIMIT ? OFFSET ?`,
            ...params,
            take,
            skip,
          )
        : Promise.resolve([]),
    ]);
    const total = Math.min(Number(counted[0]?.n ?? 0), limit);
    if (!ids.length) return pageOf([], total, req);

    const idList = ids.map((r) => r.Id);
    const select = this.columns ? await this.columns.selectList('Events', EVENT_COLUMNS) : EVENT_COLUMNS.join(', ');
    const [rows, tags] = await Promise.all([
      this.prisma.$queryRawUnsafe<EventRow[]>(
        `SELECT ${select} FROM Events WHERE Id IN (${idList.map(() => '?').join(', ')})`,
        ...idList,
      ),
      eventTagsOf(this.prisma, idList),
    ]);
    const byId = new Map(rows.map((r) => [String(r.Id), r]));
    const items = idList.flatMap((id) => {
      const row = byId.get(String(id));
      return row ? [toEventResponse(row, clock, tags.get(String(id)))] : [];
    });
    return pageOf(items, total, req);
  }

  private async row(id: number): Promise<Filters> {
    const row = await this.prisma.filters.findUnique({ where: { Id: id } });
    if (!row) throw notFound(id);
    return row;
  }

  /**
   * zmfilter.pl runs AutoExecuteCmd as a shell command of the ZoneMinder user, so turning it on
   * or setting the command is an administrator's decision (System Edit), not an Events editor's.
   */
  private checkExecute(user: AuthUser, body: FilterFields): void {
    if (allows(user.perms, 'system', 'Edit')) return;
    const details: Array<[string, string]> = [];
    if (body.auto_execute) details.push(['auto_execute', 'needs System Edit']);
    if (body.auto_execute_cmd) details.push(['auto_execute_cmd', 'needs System Edit']);
    if (details.length) throw new PermissionDeniedError('Filters that execute commands need System Edit', details);
  }

  /** The Query_json to store, from `filter` or `query_json` (undefined: neither was given). */
  private async storedQuery(body: FilterFields): Promise<string | undefined> {
    let tree: FilterQuery;
    let source: 'filter' | 'query_json';
    let skipLocked = 0;
    const clock = await this.clock();
    if (body.filter != null) {
      tree = body.filter;
      source = 'filter';
    } else if (body.query_json != null) {
      tree = zmJsonToFilter(body.query_json, clock);
      source = 'query_json';
      skipLocked = (JSON.parse(body.query_json) as { skip_locked?: unknown }).skip_locked ? 1 : 0;
    } else {
      return undefined;
    }
    // Paths in errors name the request field the condition came in.
    const rename = (details: ErrorDetails): ErrorDetails =>
      source === 'filter'
        ? details.map(([p, m]) => [`filter.${p}`, m])
        : details.map(([p, m]) => ['query_json', `${p}: ${m}`]);
    try {
      const compiled = compileFilter(tree, clock);
      await this.checkRegexps(compiled.regexps);
    } catch (err) {
      if (err instanceof InvalidInputError) throw new InvalidInputError(err.message, rename(err.details));
      throw err;
    }
    const unsafe = zmfilterUnsafeValues(tree);
    if (unsafe.length) throw new InvalidInputError('A saved filter must be runnable by zmfilter.pl', rename(unsafe));
    return JSON.stringify({ ...filterToZmQuery(tree), ...(skipLocked && { skip_locked: 1 }) });
  }

  /** Each REGEXP pattern compiled by MariaDB itself, so a bad one is a 400 naming it. */
  private async checkRegexps(regexps: Array<{ path: string; pattern: string }>): Promise<void> {
    for (const { path, pattern } of regexps) {
      try {
        await this.prisma.$queryRawUnsafe(`SELECT ('' REGEXP ?) AS ok`, pattern);
      } catch (err) {
        if (isRegexpError(err))
          throw new InvalidInputError('Invalid filter', [[path, 'is not a valid regular expression']]);
        throw err;
      }
    }
  }
}
