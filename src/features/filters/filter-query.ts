// Event filters as a typed condition tree (the v3 FilterQuery): groups (`all` / `any` of their
// rules) and rules (field, operator, value) over a closed list of event fields and operators.
//
// compileFilter() validates a tree and turns it into SQL over `Events E` (joined with `Monitors M`
// only when a monitor field is used). Column names and operators come from the two tables
// below and nothing else; every value is a `?` placeholder, so no input can change the shape
// of the statement. Quotes, `; DROP …`, `%`, `_` and any Unicode are plain data.
//
// Semantics follow ZoneMinder's filters (web FilterTerm.php, zmfilter.pl), so a filter means
// the same in its UI, in zmfilter.pl and here:
//   eq ne gt gte lt lte   = <> > >= < <= (collation of the column decides case)
//   like / not_like       LIKE; a value without `%` means "contains": it is wrapped in `%…%`
//                         (as ZoneMinder does) and here its `_` and `\` are taken literally
//   regexp / not_regexp   MariaDB REGEXP with the pattern as a parameter (text fields)
//   in / not_in           a list (JSON array, or ZoneMinder's comma-separated string)
//   is_null / is_not_null IS NULL / IS NOT NULL (the value is ignored)
// Times: `now`, `±N second|minute|hour|day|week|month`, or ISO 8601 (event-time.ts).
import { InvalidInputError } from '../../errors.js';
import type { SortDirection } from '../../api/wrappers.js';
import { parseFilterTime, type ZoneClock } from '../../zm/event-time.js';
import { wallClockSql } from '../../zm/event-time.js';

/** An event field a filter can test or sort on. */
export type FilterField =
  | 'id'
  | 'monitor_id'
  | 'name'
  | 'cause'
  | 'notes'
  | 'start_time'
  | 'end_time'
  | 'length'
  | 'frames'
  | 'alarm_frames'
  | 'tot_score'
  | 'avg_score'
  | 'max_score'
  | 'archived'
  | 'videoed'
  | 'uploaded'
  | 'emailed'
  | 'messaged'
  | 'executed'
  | 'locked'
  | 'state_id'
  | 'storage_id'
  | 'disk_space'
  | 'width'
  | 'height'
  | 'monitor_name'
  | 'server_id';

/** A comparison. */
export type FilterOp =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'like'
  | 'not_like'
  | 'in'
  | 'not_in'
  | 'is_null'
  | 'is_not_null'
  | 'regexp'
  | 'not_regexp';

/** `all`: every rule must hold (AND); `any`: at least one (OR). */
export type FilterMatch = 'all' | 'any';

export type FilterScalar = string | number | boolean;
/** A single value, a list (for `in` / `not_in`), or null (for `is_null` / `is_not_null`). */
export type FilterValue = FilterScalar | FilterScalar[] | null;

/**
 * One node of the condition tree: a group (`match` and `rules`) or a rule (`field`, `op` and
 * `value`), never both.
 */
export interface FilterExpr {
  /** Group: `all` (AND, the default) or `any` (OR) of `rules`. */
  match?: FilterMatch;
  /** Group: the child nodes; a group below the root needs at least one. */
  rules?: FilterExpr[];
  /** Rule: the event field tested. */
  field?: FilterField;
  /** Rule: the comparison. */
  op?: FilterOp;
  /** Rule: the value; times take `now`, `-N unit` (second … month) or ISO 8601. */
  value?: FilterValue;
}

export interface FilterSort {
  /** The field to sort on. */
  field: FilterField;
  /** `asc` or `desc` (default `desc`). */
  dir?: SortDirection;
}

export interface FilterQuery {
  /** The condition tree; an empty root group matches every event. */
  where: FilterExpr;
  /** Sort order (default: start_time, newest first). */
  sort?: FilterSort | null;
  /**
   * At most this many events match (ZoneMinder's filter limit); 0 or null: no limit.
   * @isLong
   * @minimum 0
   */
  limit?: number | null;
}

type Kind = 'int' | 'decimal' | 'text' | 'datetime';

interface FieldSpec {
  /** SQL column expression over `Events E` / `Monitors M`. */
  column: string;
  /** ZoneMinder's attribute name in Query_json terms. */
  zm: string;
  kind: Kind;
  /** Needs the Monitors join. */
  monitor?: boolean;
}

const int = (column: string, zm: string): FieldSpec => ({ column: `E.${column}`, zm, kind: 'int' });
const text = (column: string, zm: string): FieldSpec => ({ column: `E.${column}`, zm, kind: 'text' });

/** The closed list of fields: the only source of column names in filter SQL. */
export const FILTER_FIELDS: Readonly<Record<FilterField, FieldSpec>> = {
  id: int('Id', 'Id'),
  monitor_id: int('MonitorId', 'MonitorId'),
  name: text('Name', 'Name'),
  cause: text('Cause', 'Cause'),
  notes: text('Notes', 'Notes'),
  start_time: { column: 'E.StartDateTime', zm: 'StartDateTime', kind: 'datetime' },
  end_time: { column: 'E.EndDateTime', zm: 'EndDateTime', kind: 'datetime' },
  length: { column: 'E.Length', zm: 'Length', kind: 'decimal' },
  frames: int('Frames', 'Frames'),
  alarm_frames: int('AlarmFrames', 'AlarmFrames'),
  tot_score: int('TotScore', 'TotScore'),
  avg_score: int('AvgScore', 'AvgScore'),
  max_score: int('MaxScore', 'MaxScore'),
  archived: int('Archived', 'Archived'),
  videoed: int('Videoed', 'Videoed'),
  uploaded: int('Uploaded', 'Uploaded'),
  emailed: int('Emailed', 'Emailed'),
  messaged: int('Messaged', 'Messaged'),
  executed: int('Executed', 'Executed'),
  locked: int('Locked', 'Locked'),
  state_id: int('StateId', 'StateId'),
  storage_id: int('StorageId', 'StorageId'),
  disk_space: int('DiskSpace', 'DiskSpace'),
  width: int('Width', 'Width'),
  height: int('Height', 'Height'),
  monitor_name: { column: 'M.Name', zm: 'MonitorName', kind: 'text', monitor: true },
  server_id: { column: 'M.ServerId', zm: 'ServerId', kind: 'int', monitor: true },
};

type Arity = 'one' | 'list' | 'none';
interface OpSpec {
  sql: string;
  arity: Arity;
  kinds: readonly Kind[];
  /** ZoneMinder's operator in Query_json terms. */
  zm: string;
}

const ANY_KIND: readonly Kind[] = ['int', 'decimal', 'text', 'datetime'];
const TEXT: readonly Kind[] = ['text'];
const LISTABLE: readonly Kind[] = ['int', 'decimal', 'text'];

/** The closed list of operators: the only source of SQL operators in filter SQL. */
export const FILTER_OPS: Readonly<Record<FilterOp, OpSpec>> = {
  eq: { sql: '=', arity: 'one', kinds: ANY_KIND, zm: '=' },
  ne: { sql: '<>', arity: 'one', kinds: ANY_KIND, zm: '!=' },
  gt: { sql: '>', arity: 'one', kinds: ANY_KIND, zm: '>' },
  gte: { sql: '>=', arity: 'one', kinds: ANY_KIND, zm: '>=' },
  lt: { sql: '<', arity: 'one', kinds: ANY_KIND, zm: '<' },
  lte: { sql: '<=', arity: 'one', kinds: ANY_KIND, zm: '<=' },
  like: { sql: 'LIKE', arity: 'one', kinds: TEXT, zm: 'LIKE' },
  not_like: { sql: 'NOT LIKE', arity: 'one', kinds: TEXT, zm: 'NOT LIKE' },
  regexp: { sql: 'REGEXP', arity: 'one', kinds: TEXT, zm: '=~' },
  not_regexp: { sql: 'NOT REGEXP', arity: 'one', kinds: TEXT, zm: '!~' },
  in: { sql: 'IN', arity: 'list', kinds: LISTABLE, zm: 'IN' },
  not_in: { sql: 'NOT IN', arity: 'list', kinds: LISTABLE, zm: 'NOT IN' },
  is_null: { sql: 'IS NULL', arity: 'none', kinds: ANY_KIND, zm: 'IS' },
  is_not_null: { sql: 'IS NOT NULL', arity: 'none', kinds: ANY_KIND, zm: 'IS NOT' },
};

export const FILTER_FIELD_NAMES = Object.keys(FILTER_FIELDS) as FilterField[];
export const FILTER_OP_NAMES = Object.keys(FILTER_OPS) as FilterOp[];

/** Bounds that keep one request's SQL small. */
export const FILTER_LIMITS = { nodes: 500, depth: 16, list: 1000, text: 4096, regexp: 1024 } as const;

export const isFilterField = (v: unknown): v is FilterField => typeof v === 'string' && Object.hasOwn(FILTER_FIELDS, v);
export const isFilterOp = (v: unknown): v is FilterOp => typeof v === 'string' && Object.hasOwn(FILTER_OPS, v);
export const opArity = (op: FilterOp): Arity => FILTER_OPS[op].arity;

function bad(path: string, message: string): InvalidInputError {
  return new InvalidInputError('Invalid filter', [[path, message]]);
}

const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 64n - 1n;

/** One value of a rule, checked against its field's kind and turned into a SQL parameter. */
function scalarParam(kind: Kind, value: unknown, path: string, clock: ZoneClock, now: Date): unknown {
  if (value === null || value === undefined || Array.isArray(value) || typeof value === 'object') {
    throw bad(path, 'must be a single value');
  }
  switch (kind) {
    case 'int': {
      const v = typeof value === 'boolean' ? (value ? '1' : '0') : String(value).trim();
      if (!/^-?\d{1,20}$/.test(v)) throw bad(path, 'must be an integer');
      const n = BigInt(v);
      if (n < INT_MIN || n > INT_MAX) throw bad(path, 'is out of range');
      return n;
    }
    case 'decimal': {
      const v = String(value).trim();
      if (typeof value === 'boolean' || !/^-?\d{1,12}(\.\d{1,6})?$/.test(v))
        throw bad(path, 'must be a decimal number');
      return Number(v);
    }
    case 'text': {
      if (typeof value === 'boolean') throw bad(path, 'must be text');
      const v = String(value);
      if (v.length > FILTER_LIMITS.text) throw bad(path, `must be at most ${FILTER_LIMITS.text} characters`);
      return v;
    }
    case 'datetime': {
      if (typeof value !== 'string')
        throw bad(path, 'must be a time: now, -N second|minute|hour|day|week|month, or ISO 8601');
      const wall = parseFilterTime(value, clock, now);
      if (!wall) throw bad(path, 'must be a time: now, -N second|minute|hour|day|week|month, or ISO 8601');
      return wallClockSql(wall);
    }
  }
}

/** A list value: a JSON array, or ZoneMinder's comma-separated string. */
export function listValues(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (typeof value === 'number') return [value];
  return null;
}

/** LIKE parameter: a value without `%` is a literal "contains" (ZoneMinder wraps it in %…%). */
function likePattern(text: string): string {
  return text.includes('%') ? text : `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface CompiledRule {
  sql: string;
  params: unknown[];
  monitor: boolean;
  regexp?: { path: string; pattern: string };
}

/** Checks a rule's field and operator (names and fit); returns their specs. */
function ruleSpecs(node: FilterExpr, path: string): { spec: FieldSpec; operator: OpSpec } {
  const { field, op } = node;
  if (!isFilterField(field)) {
    throw bad(
      `${path}.field`,
      `unknown field ${JSON.stringify(field ?? null)}; one of ${FILTER_FIELD_NAMES.join(', ')}`,
    );
  }
  if (!isFilterOp(op))
    throw bad(`${path}.op`, `unknown operator ${JSON.stringify(op ?? null)}; one of ${FILTER_OP_NAMES.join(', ')}`);
  const spec = FILTER_FIELDS[field];
  const operator = FILTER_OPS[op];
  if (!operator.kinds.includes(spec.kind)) throw bad(`${path}.op`, `operator ${op} does not apply to field ${field}`);
  return { spec, operator };
}

/**
 * Checks one rule node and compiles it. `path` names the node in error details (e.g.
 * `where.rules[2]`); callers that validate ZoneMinder terms pass their own paths.
 */
export function compileRule(node: FilterExpr, path: string, clock: ZoneClock, now: Date = new Date()): CompiledRule {
  const { spec, operator } = ruleSpecs(node, path);
  const op = node.op as FilterOp;
  const monitor = spec.monitor === true;
  const valuePath = `${path}.value`;

  if (operator.arity === 'none') return { sql: `${spec.column} ${operator.sql}`, params: [], monitor };
  if (operator.arity === 'list') {
    const items = listValues(node.value);
    if (!items || items.length === 0) throw bad(valuePath, 'must be a non-empty list');
    if (items.length > FILTER_LIMITS.list) throw bad(valuePath, `must have at most ${FILTER_LIMITS.list} items`);
    const params = items.map((item, i) => scalarParam(spec.kind, item, `${valuePath}[${i}]`, clock, now));
    return { sql: `${spec.column} ${operator.sql} (${params.map(() => '?').join(', ')})`, params, monitor };
  }
  const param = scalarParam(spec.kind, node.value, valuePath, clock, now);
  if (op === 'like' || op === 'not_like')
    return { sql: `${spec.column} ${operator.sql} ?`, params: [likePattern(param as string)], monitor };
  if (op === 'regexp' || op === 'not_regexp') {
    const pattern = param as string;
    if (pattern.length > FILTER_LIMITS.regexp)
      throw bad(valuePath, `must be at most ${FILTER_LIMITS.regexp} characters`);
    return {
      sql: `${spec.column} ${operator.sql} ?`,
      params: [pattern],
      monitor,
      regexp: { path: valuePath, pattern },
    };
  }
  return { sql: `${spec.column} ${operator.sql} ?`, params: [param], monitor };
}

export const isGroup = (node: FilterExpr): boolean => node.match !== undefined || node.rules !== undefined;
const isRule = (node: FilterExpr): boolean => node.field !== undefined || node.op !== undefined;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks the shape of a FilterQuery without looking at values: node kinds, group matches,
 * field and operator names (and their fit), sort, limit, and the size bounds. Depth is checked
 * before descending, so any nesting is refused in constant stack. `prefix` is put in front of
 * every path (`filter.` when the query is a body field). Run before the request validator too,
 * so unknown names get these messages and huge trees never reach it.
 */
export function checkFilterShape(query: unknown, prefix = ''): asserts query is FilterQuery {
  if (!isObject(query) || !isObject(query.where))
    throw bad(`${prefix}where`, 'is required and must be a group or a rule');
  let nodes = 0;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (!isObject(node)) throw bad(path, 'must be a group (match, rules) or a rule (field, op, value)');
    if (++nodes > FILTER_LIMITS.nodes) throw bad(path, `the tree may have at most ${FILTER_LIMITS.nodes} nodes`);
    if (depth > FILTER_LIMITS.depth) throw bad(path, `groups may nest at most ${FILTER_LIMITS.depth} deep`);
    const expr = node as FilterExpr;
    if (isGroup(expr) && isRule(expr))
      throw bad(path, 'a node is either a group (match, rules) or a rule (field, op, value)');
    if (isGroup(expr)) {
      if (expr.match !== undefined && expr.match !== 'all' && expr.match !== 'any')
        throw bad(`${path}.match`, 'must be all or any');
      const rules = expr.rules ?? [];
      if (!Array.isArray(rules)) throw bad(`${path}.rules`, 'must be a list');
      if (rules.length === 0 && depth > 0) throw bad(`${path}.rules`, 'a nested group needs at least one rule');
      rules.forEach((child, i) => walk(child, `${path}.rules[${i}]`, depth + 1));
      return;
    }
    if (!isRule(expr)) throw bad(path, 'must be a group (match, rules) or a rule (field, op, value)');
    ruleSpecs(expr, path);
  };
  walk(query.where, `${prefix}where`, 0);
  const sort = query.sort;
  if (sort !== undefined && sort !== null) {
    if (!isObject(sort) || !isFilterField(sort.field)) {
      throw bad(
        `${prefix}sort.field`,
        `unknown field ${JSON.stringify(isObject(sort) ? (sort.field ?? null) : null)}; one of ${FILTER_FIELD_NAMES.join(', ')}`,
      );
    }
    if (sort.dir !== undefined && sort.dir !== 'asc' && sort.dir !== 'desc')
      throw bad(`${prefix}sort.dir`, 'must be asc or desc');
  }
  const limit = query.limit;
  if (limit !== undefined && limit !== null && (!Number.isInteger(limit) || (limit as number) < 0)) {
    throw bad(`${prefix}limit`, 'must be an integer >= 0');
  }
}

export interface CompiledFilter {
  /** A boolean SQL expression over `Events E` (and `Monitors M` when `monitor`). */
  where: string;
  params: unknown[];
  /** `ORDER BY …` with the event id as the tie-break. */
  orderBy: string;
  monitor: boolean;
  /** The match limit (null: none). */
  limit: number | null;
  /** REGEXP patterns with their paths, so a caller can check them before running the query. */
  regexps: Array<{ path: string; pattern: string }>;
}

/** Validates a whole FilterQuery (shape, fields, operators, values, bounds) and compiles it. */
export function compileFilter(query: FilterQuery, clock: ZoneClock, now: Date = new Date()): CompiledFilter {
  checkFilterShape(query);
  const params: unknown[] = [];
  const regexps: CompiledFilter['regexps'] = [];
  let monitor = false;

  const walk = (node: FilterExpr, path: string): string => {
    if (isGroup(node)) {
      const rules = node.rules ?? [];
      if (rules.length === 0) return '1=1'; // only the root may be empty (checked above)
      const parts = rules.map((child, i) => walk(child, `${path}.rules[${i}]`));
      return parts.length === 1 ? parts[0] : `(${parts.join((node.match ?? 'all') === 'all' ? ' AND ' : ' OR ')})`;
    }
    const rule = compileRule(node, path, clock, now);
    params.push(...rule.params);
    monitor ||= rule.monitor;
    if (rule.regexp) regexps.push(rule.regexp);
    return rule.sql;
  };

  const where = walk(query.where, 'where');
  let orderBy = 'ORDER BY E.StartDateTime DESC, E.Id DESC';
  if (query.sort) {
    const spec = FILTER_FIELDS[query.sort.field];
    const sqlDir = (query.sort.dir ?? 'desc') === 'asc' ? 'ASC' : 'DESC';
    monitor ||= spec.monitor === true;
    orderBy = `ORDER BY ${spec.column} ${sqlDir}${query.sort.field === 'id' ? '' : `, E.Id ${sqlDir}`}`;
  }
  const limit = query.limit ? Math.min(query.limit, Number.MAX_SAFE_INTEGER) : null;
  return { where, params, orderBy, monitor, limit, regexps };
}

/** Calls `visit` for every rule of the tree with its path (for checks on values only). */
export function forEachRule(query: FilterQuery, visit: (rule: FilterExpr, path: string) => void): void {
  const walk = (node: FilterExpr, path: string) => {
    if (isGroup(node)) (node.rules ?? []).forEach((child, i) => walk(child, `${path}.rules[${i}]`));
    else visit(node, path);
  };
  walk(query.where, 'where');
}
