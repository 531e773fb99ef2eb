// Translation between the v3 condition tree (filter-query.ts) and ZoneMinder's own filter
// format, `Filters.Query_json`:
//   {"terms": [{"cnj": "and"|"or", "obr": "1", "attr": "MonitorId", "op": "=", "val": "1",
//               "cbr": "1"}, …], "sort_field": "StartDateTime", "sort_asc": 0, "limit": 100}
// a flat list in which `obr` / `cbr` count the brackets opened before / closed after a term and
// `cnj` joins a term to the previous one. zmfilter.pl and the PHP UI splice the terms into SQL in
// that order, so AND binds tighter than OR; the parser here applies the same precedence.
//
// Filters saved through v3 are stored in this format so zmfilter.pl and ZoneMinder's UI keep
// running them; the tree is what the API exposes (FilterResponse.filter).
import { InvalidInputError, type ErrorDetails } from '../../errors.js';
import {
  compileRule,
  FILTER_FIELDS,
  FILTER_OPS,
  forEachRule,
  isFilterField,
  isGroup,
  listValues,
  opArity,
  type FilterExpr,
  type FilterField,
  type FilterOp,
  type FilterQuery,
  type FilterScalar,
} from './filter-query.js';
import type { ZoneClock } from '../../zm/event-time.js';

/** ZoneMinder attribute → v3 field (every field's own name, plus ZoneMinder's aliases). */
const ZM_ATTRS = new Map<string, FilterField>([
  ...Object.entries(FILTER_FIELDS).map(([field, spec]) => [spec.zm, field as FilterField] as const),
  ['DateTime', 'start_time'],
  ['MonitorServerId', 'server_id'],
]);

/** ZoneMinder operator → v3 operator (`IS` / `IS NOT` only with the value NULL). */
const ZM_OPS = new Map<string, FilterOp>([
  ...Object.entries(FILTER_OPS)
    .filter(([op]) => op !== 'is_null' && op !== 'is_not_null')
    .map(([op, spec]) => [spec.zm, op as FilterOp] as const),
  ['=[]', 'in'],
  ['![]', 'not_in'],
]);

/** ZoneMinder's sort_field values → v3 fields (zmfilter.pl's names, then every attribute). */
const ZM_SORT = new Map<string, FilterField>([
  ...ZM_ATTRS,
  ['StartTime', 'start_time'],
  ['EndTime', 'end_time'],
  ['Secs', 'length'],
]);

export interface ZmTerm {
  cnj?: string;
  obr?: string;
  attr: string;
  op: string;
  val: string;
  cbr?: string;
}

export interface ZmQuery {
  terms: ZmTerm[];
  sort_field: string;
  sort_asc: number;
  limit?: number;
  skip_locked?: number;
}

const MAX_TERMS = 500;
const MAX_BRACKETS = 50;

function bad(path: string, message: string): InvalidInputError {
  return new InvalidInputError('Invalid query_json', [[path, message]]);
}

type Token = { t: '(' } | { t: ')' } | { t: 'and' } | { t: 'or' } | { t: 'leaf'; node: FilterExpr };

function count(value: unknown, path: string): number {
  if (value === undefined || value === null || value === '') return 0;
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_BRACKETS) throw bad(path, `must be a bracket count 0..${MAX_BRACKETS}`);
  return n;
}

function termValue(val: unknown, op: FilterOp): FilterExpr['value'] {
  if (opArity(op) === 'none') return null;
  if (opArity(op) === 'list') return (listValues(Array.isArray(val) ? val : String(val ?? '')) ?? []) as FilterScalar[];
  if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') return val;
  return val === null || val === undefined ? '' : String(val);
}

/** One ZoneMinder term as a v3 rule; unknown attributes and operators are refused by name. */
function termToRule(term: Record<string, unknown>, path: string): FilterExpr {
  const attr = term.attr;
  const field = typeof attr === 'string' ? ZM_ATTRS.get(attr) : undefined;
  if (!field) {
    throw bad(
      `${path}.attr`,
      `unsupported attribute ${JSON.stringify(attr ?? null)}; one of ${[...ZM_ATTRS.keys()].join(', ')}`,
    );
  }
  const rawOp = typeof term.op === 'string' ? term.op.trim().toUpperCase() : term.op;
  let op: FilterOp | undefined;
  if (rawOp === 'IS' || rawOp === 'IS NOT') {
    if (
      String(term.val ?? '')
        .trim()
        .toUpperCase() !== 'NULL'
    )
      throw bad(`${path}.val`, `${rawOp} is supported with the value NULL only`);
    op = rawOp === 'IS' ? 'is_null' : 'is_not_null';
  } else if (typeof rawOp === 'string') {
    op = ZM_OPS.get(rawOp);
  }
  if (!op)
    throw bad(
      `${path}.op`,
      `unsupported operator ${JSON.stringify(term.op ?? null)}; one of ${[...ZM_OPS.keys(), 'IS', 'IS NOT'].join(', ')}`,
    );
  return { field, op, value: termValue(term.val, op) };
}

/** Parses tokens with SQL precedence (AND over OR) into a tree with merged same-kind groups. */
class TermParser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): FilterExpr {
    const node = this.or();
    if (this.i !== this.tokens.length) throw bad('query_json.terms', 'unbalanced brackets: a ) closes nothing');
    return node;
  }

  private or(): FilterExpr {
    const parts = [this.and()];
    while (this.tokens[this.i]?.t === 'or') {
      this.i++;
      parts.push(this.and());
    }
    return group('any', parts);
  }

  private and(): FilterExpr {
    const parts = [this.primary()];
    while (this.tokens[this.i]?.t === 'and') {
      this.i++;
      parts.push(this.primary());
    }
    return group('all', parts);
  }

  private primary(): FilterExpr {
    const token = this.tokens[this.i++];
    if (token?.t === 'leaf') return token.node;
    if (token?.t === '(') {
      const inner = this.or();
      if (this.tokens[this.i++]?.t !== ')') throw bad('query_json.terms', 'unbalanced brackets: a ( is never closed');
      return inner;
    }
    throw bad('query_json.terms', 'unbalanced brackets');
  }
}

/** A group of `parts`, flattening children that are groups of the same kind. */
function group(match: 'all' | 'any', parts: FilterExpr[]): FilterExpr {
  if (parts.length === 1) return parts[0];
  const rules = parts.flatMap((p) => (isGroup(p) && (p.match ?? 'all') === match ? (p.rules ?? []) : [p]));
  return { match, rules };
}

function sortFrom(raw: Record<string, unknown>): FilterQuery['sort'] {
  const name = raw.sort_field;
  if (name === undefined || name === null || name === '') return null;
  const field = typeof name === 'string' ? ZM_SORT.get(name) : undefined;
  if (!field) throw bad('query_json.sort_field', `unsupported sort field ${JSON.stringify(name)}`);
  // zmfilter.pl: `$filter_expr->{sort_asc} ? 'ASC' : 'DESC'`, i.e. Perl truthiness.
  const asc = raw.sort_asc;
  const descending = asc === undefined || asc === null || asc === false || asc === 0 || asc === '' || asc === '0';
  return { field, dir: descending ? 'desc' : 'asc' };
}

function limitFrom(raw: Record<string, unknown>): number | null {
  const v = raw.limit;
  if (v === undefined || v === null || v === '' || v === 0 || v === '0') return null;
  const n = typeof v === 'number' ? v : /^\d{1,15}$/.test(String(v)) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0) throw bad('query_json.limit', 'must be an integer >= 0');
  return n;
}

/**
 * ZoneMinder's Query_json → the v3 tree. Throws InvalidInputError naming the offending term
 * (`query_json.terms[2].attr`, …). With `clock`, every rule's value is also checked.
 */
export function zmJsonToFilter(text: string, clock?: ZoneClock): FilterQuery {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw bad('query_json', 'is not valid JSON');
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw bad('query_json', 'must be a JSON object with a terms list');
  const obj = raw as Record<string, unknown>;
  const terms = obj.terms ?? [];
  if (!Array.isArray(terms)) throw bad('query_json.terms', 'must be a list');
  if (terms.length > MAX_TERMS) throw bad('query_json.terms', `may have at most ${MAX_TERMS} terms`);

  const tokens: Token[] = [];
  terms.forEach((term: unknown, i) => {
    const path = `query_json.terms[${i}]`;
    if (!term || typeof term !== 'object' || Array.isArray(term)) throw bad(path, 'must be an object');
    const t = term as Record<string, unknown>;
    if (i > 0) {
      // A term without a conjunction joins with AND (ZoneMinder's UI always writes one).
      const cnj = t.cnj === undefined || t.cnj === null || t.cnj === '' ? 'and' : String(t.cnj).toLowerCase();
      if (cnj !== 'and' && cnj !== 'or') throw bad(`${path}.cnj`, 'must be and or or');
      tokens.push({ t: cnj });
    }
    for (let n = count(t.obr, `${path}.obr`); n > 0; n--) tokens.push({ t: '(' });
    const rule = termToRule(t, path);
    if (clock) compileRule(rule, path, clock);
    tokens.push({ t: 'leaf', node: rule });
    for (let n = count(t.cbr, `${path}.cbr`); n > 0; n--) tokens.push({ t: ')' });
  });

  let where: FilterExpr = { match: 'all', rules: [] };
  if (tokens.length) {
    const tree = new TermParser(tokens).parse();
    where = isGroup(tree) ? tree : { match: 'all', rules: [tree] };
  }
  return { where, sort: sortFrom(obj), limit: limitFrom(obj) };
}

/** ZoneMinder's text for one value (zmfilter.pl and the UI read strings). */
function zmValue(value: FilterExpr['value'], op: FilterOp): string {
  if (opArity(op) === 'none') return 'NULL';
  const one = (v: unknown) => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  if (opArity(op) === 'list') return (listValues(value) ?? []).map(one).join(',');
  return one(value);
}

/**
 * The v3 tree → ZoneMinder's Query_json object. A group below the root with two or more rules
 * becomes one bracket pair around its terms, so the flat list means exactly the tree whatever
 * the precedence. Without a sort, ZoneMinder's default (StartDateTime, descending) is written,
 * which is also the v3 default.
 */
export function filterToZmQuery(query: FilterQuery): ZmQuery {
  const terms: ZmTerm[] = [];
  const emit = (node: FilterExpr, root: boolean): void => {
    if (isGroup(node)) {
      const rules = node.rules ?? [];
      const first = terms.length;
      rules.forEach((child, i) => {
        const start = terms.length;
        emit(child, false);
        if (i > 0 && terms[start]) terms[start].cnj = (node.match ?? 'all') === 'all' ? 'and' : 'or';
      });
      if (!root && rules.length > 1) {
        terms[first].obr = String(Number(terms[first].obr ?? 0) + 1);
        const last = terms[terms.length - 1];
        last.cbr = String(Number(last.cbr ?? 0) + 1);
      }
      return;
    }
    const op = node.op as FilterOp;
    terms.push({
      attr: FILTER_FIELDS[node.field as FilterField].zm,
      op: FILTER_OPS[op].zm,
      val: zmValue(node.value, op),
    });
  };
  emit(query.where, true);
  // Keys in ZoneMinder's own order: cnj, obr, attr, op, val, cbr.
  const ordered = terms.map(({ cnj, obr, attr, op, val, cbr }) => ({
    ...(cnj && { cnj }),
    ...(obr && { obr }),
    attr,
    op,
    val,
    ...(cbr && { cbr }),
  }));
  const sort = query.sort ?? { field: 'start_time' as const, dir: 'desc' as const };
  return {
    terms: ordered,
    sort_field: FILTER_FIELDS[sort.field].zm,
    sort_asc: (sort.dir ?? 'desc') === 'asc' ? 1 : 0,
    ...(query.limit ? { limit: query.limit } : {}),
  };
}

/**
 * Values that zmfilter.pl could not run faithfully. It splices term values into its SQL without
 * escaping (text inside '…', numbers bare) and splits every value at commas, so a stored value
 * holding ' or \ would break or subvert its query, a comma would change the value, and a
 * leading or trailing " is stripped. Such filters are refused on save (preview takes them:
 * there every value is a parameter).
 */
export function zmfilterUnsafeValues(query: FilterQuery): ErrorDetails {
  const problems: ErrorDetails = [];
  forEachRule(query, (rule, path) => {
    if (!isFilterField(rule.field) || opArity(rule.op as FilterOp) === 'none') return;
    const list = opArity(rule.op as FilterOp) === 'list';
    const values = list ? (listValues(rule.value) ?? []) : [rule.value];
    values.forEach((v, i) => {
      if (typeof v !== 'string') return;
      const where = list ? `${path}.value[${i}]` : `${path}.value`;
      if (/['\\]/.test(v))
        problems.push([where, "contains ' or \\, which zmfilter.pl would put into its SQL unescaped"]);
      else if (v.includes(',')) problems.push([where, 'contains a comma, at which zmfilter.pl splits values']);
      else if (/^"|"$/.test(v)) problems.push([where, 'starts or ends with ", which zmfilter.pl strips']);
    });
  });
  return problems;
}
