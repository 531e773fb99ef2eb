// The filter condition tree without a database: compilation to parameterised SQL, the
// translation to and from ZoneMinder's flat Query_json (brackets, conjunctions, precedence),
// relative times, and the zmfilter.pl safety check for saved filters.
import test from 'ava';
import { parseFilterTime, ZoneClock } from '../../src/zm/event-time.js';
import {
  checkFilterShape,
  compileFilter,
  FILTER_FIELDS,
  FILTER_OPS,
  type FilterQuery,
} from '../../src/features/filters/filter-query.js';
import { filterToZmQuery, zmfilterUnsafeValues, zmJsonToFilter } from '../../src/features/filters/filter-zm-json.js';

const utc = new ZoneClock('UTC');
const berlin = new ZoneClock('Europe/Berlin');
const r = (field: string, op: string, value?: unknown) => ({ field, op, ...(value !== undefined && { value }) }) as any;
const all = (...rules: any[]) => ({ match: 'all', rules }) as any;
const any = (...rules: any[]) => ({ match: 'any', rules }) as any;
const q = (where: any, extra: Partial<FilterQuery> = {}): FilterQuery => ({ where, ...extra });

test('compiled SQL holds only whitelisted columns and operators; every value is a placeholder', (t) => {
  const hostile = "'; DROP TABLE Events; --";
  const c = compileFilter(
    q(
      all(
        r('name', 'eq', hostile),
        any(r('notes', 'like', hostile), r('cause', 'regexp', hostile)),
        r('monitor_id', 'in', [1, 2]),
      ),
    ),
    utc,
  );
  t.is(c.where, '(E.Name = ? AND (E.Notes LIKE ? OR E.Cause REGEXP ?) AND E.MonitorId IN (?, ?))');
  t.deepEqual(c.params, [hostile, `%'; DROP TABLE Events; --%`, hostile, 1n, 2n]);
  t.false(c.where.includes('DROP'));
  t.false(c.monitor);
  t.deepEqual(c.regexps, [{ path: 'where.rules[1].rules[1].value', pattern: hostile }]);
  t.is(c.orderBy, 'ORDER BY E.StartDateTime DESC, E.Id DESC');
  const m = compileFilter(
    q(all(r('monitor_name', 'is_null')), { sort: { field: 'max_score', dir: 'asc' }, limit: 5 }),
    utc,
  );
  t.deepEqual(
    [m.where, m.monitor, m.orderBy, m.limit],
    ['M.Name IS NULL', true, 'ORDER BY E.MaxScore ASC, E.Id ASC', 5],
  );
  t.is(compileFilter(q(all()), utc).where, '1=1');
});

test('every operator maps to its SQL; like escapes wildcards only in "contains" values', (t) => {
  const sqlOf = (rule: any) => compileFilter(q(all(rule)), utc);
  t.is(sqlOf(r('id', 'ne', 1)).where, 'E.Id <> ?');
  t.is(sqlOf(r('id', 'gt', 1)).where, 'E.Id > ?');
  t.is(sqlOf(r('id', 'gte', 1)).where, 'E.Id >= ?');
  t.is(sqlOf(r('id', 'lt', 1)).where, 'E.Id < ?');
  t.is(sqlOf(r('id', 'lte', 1)).where, 'E.Id <= ?');
  t.is(sqlOf(r('id', 'not_in', '1,2')).where, 'E.Id NOT IN (?, ?)');
  t.is(sqlOf(r('name', 'not_like', 'x')).where, 'E.Name NOT LIKE ?');
  t.is(sqlOf(r('name', 'not_regexp', 'x')).where, 'E.Name NOT REGEXP ?');
  t.is(sqlOf(r('end_time', 'is_not_null')).where, 'E.EndDateTime IS NOT NULL');
  t.deepEqual(sqlOf(r('notes', 'like', 'a_b\\c')).params, ['%a\\_b\\\\c%']);
  t.deepEqual(sqlOf(r('notes', 'like', 'a_%')).params, ['a_%']);
  t.deepEqual(sqlOf(r('length', 'gte', '1.5')).params, [1.5]);
  t.deepEqual(sqlOf(r('id', 'eq', '18446744073709551615')).params, [18446744073709551615n]);
  t.throws(() => sqlOf(r('id', 'eq', '18446744073709551616')), { message: 'Invalid filter' });
  t.deepEqual(sqlOf(r('archived', 'eq', false)).params, [0n]);
  t.deepEqual(Object.keys(FILTER_OPS).sort(), [
    'eq',
    'gt',
    'gte',
    'in',
    'is_not_null',
    'is_null',
    'like',
    'lt',
    'lte',
    'ne',
    'not_in',
    'not_like',
    'not_regexp',
    'regexp',
  ]);
  t.is(Object.keys(FILTER_FIELDS).length, 27);
});

test('relative and absolute times against a fixed now', (t) => {
  const now = new Date('2026-03-29T12:00:00Z'); // Berlin switches to summer time at 01:00 UTC this day
  const at = (text: string, clock = utc) => parseFilterTime(text, clock, now)?.toISOString() ?? null;
  t.is(at('now'), '2026-03-29T12:00:00.000Z');
  t.is(at('NOW'), '2026-03-29T12:00:00.000Z');
  t.is(at('-1 hour'), '2026-03-29T11:00:00.000Z');
  t.is(at('-90 minutes'), '2026-03-29T10:30:00.000Z');
  t.is(at('-30 seconds'), '2026-03-29T11:59:30.000Z');
  t.is(at('-2 days'), '2026-03-27T12:00:00.000Z');
  t.is(at('-1 week'), '2026-03-22T12:00:00.000Z');
  t.is(at('-1 month'), '2026-03-01T12:00:00.000Z', 'as strtotime: 29 February 2026 does not exist and rolls over');
  t.is(parseFilterTime('-1 month', utc, new Date('2026-03-15T12:00:00Z'))?.toISOString(), '2026-02-15T12:00:00.000Z');
  t.is(at('+1 day'), '2026-03-30T12:00:00.000Z');
  t.is(
    at('-1 day', berlin),
    '2026-03-28T14:00:00.000Z',
    'days move the wall clock: 14:00 Berlin summer time today, 14:00 winter time yesterday',
  );
  t.is(
    at('-24 hours', berlin),
    '2026-03-28T13:00:00.000Z',
    'hours move the instant: 24 h before 14:00 CEST is 13:00 CET',
  );
  t.is(at('2026-01-15T10:00:00Z', berlin), '2026-01-15T11:00:00.000Z', 'an instant becomes Berlin wall-clock time');
  t.is(at('2026-01-15 10:00:00', berlin), '2026-01-15T10:00:00.000Z', 'no offset: ZoneMinder local time as stored');
  t.is(at('2026-01-15'), '2026-01-15T00:00:00.000Z');
  for (const bad of [
    'yesterday',
    '-1 fortnight',
    '-1',
    'day',
    '- day',
    '-1 day ago',
    '1 day',
    '-1234567 days',
    '2026-02-30',
    'now + 1 day',
    '',
  ]) {
    t.is(at(bad), null, bad);
  }
});

test('tree → ZoneMinder terms: brackets for nested groups, cnj from the enclosing group, values as text', (t) => {
  const tree = q(
    all(
      r('monitor_id', 'in', [1, 2]),
      any(r('name', 'like', 'door'), r('max_score', 'gte', 50)),
      r('end_time', 'is_not_null'),
    ),
    {
      sort: { field: 'start_time', dir: 'asc' },
      limit: 10,
    },
  );
  t.deepEqual(filterToZmQuery(tree), {
    terms: [
      { attr: 'MonitorId', op: 'IN', val: '1,2' },
      { cnj: 'and', obr: '1', attr: 'Name', op: 'LIKE', val: 'door' },
      { cnj: 'or', attr: 'MaxScore', op: '>=', val: '50', cbr: '1' },
      { cnj: 'and', attr: 'EndDateTime', op: 'IS NOT', val: 'NULL' },
    ],
    sort_field: 'StartDateTime',
    sort_asc: 1,
    limit: 10,
  });
  // Groups at the edges share a term with their parent's bracket.
  const edges = filterToZmQuery(
    q(any(all(any(r('id', 'eq', 1), r('id', 'eq', 2)), r('archived', 'eq', true)), r('id', 'eq', 3))),
  );
  t.deepEqual(edges.terms, [
    { obr: '2', attr: 'Id', op: '=', val: '1' },
    { cnj: 'or', attr: 'Id', op: '=', val: '2', cbr: '1' },
    { cnj: 'and', attr: 'Archived', op: '=', val: '1', cbr: '1' },
    { cnj: 'or', attr: 'Id', op: '=', val: '3' },
  ]);
  t.deepEqual(
    filterToZmQuery(q(all())),
    { terms: [], sort_field: 'StartDateTime', sort_asc: 0 },
    'ZoneMinder default sort, which is the v3 default',
  );
});

test('ZoneMinder terms → tree: AND binds tighter than OR, brackets group, same-kind groups merge', (t) => {
  const term = (attr: string, op: string, val: unknown, extra: Record<string, unknown> = {}) => ({
    attr,
    op,
    val,
    ...extra,
  });
  const parse = (terms: unknown[], extra: Record<string, unknown> = {}) =>
    zmJsonToFilter(JSON.stringify({ terms, ...extra }));
  // a or b and c  ==  a or (b and c)
  t.deepEqual(
    parse([term('Id', '=', '1'), term('Id', '=', '2', { cnj: 'or' }), term('Id', '=', '3', { cnj: 'and' })]).where,
    {
      match: 'any',
      rules: [r('id', 'eq', '1'), { match: 'all', rules: [r('id', 'eq', '2'), r('id', 'eq', '3')] }],
    },
  );
  // (a or b) and c
  t.deepEqual(
    parse([
      term('Id', '=', '1', { obr: '1' }),
      term('Id', '=', '2', { cnj: 'or', cbr: 1 }),
      term('Id', '=', '3', { cnj: 'and' }),
    ]).where,
    {
      match: 'all',
      rules: [{ match: 'any', rules: [r('id', 'eq', '1'), r('id', 'eq', '2')] }, r('id', 'eq', '3')],
    },
  );
  // a and (b and c): one group
  t.deepEqual(
    parse([
      term('Id', '=', 1),
      term('Id', '=', 2, { cnj: 'and', obr: '1' }),
      term('Id', '=', 3, { cnj: 'and', cbr: '1' }),
    ]).where,
    {
      match: 'all',
      rules: [r('id', 'eq', 1), r('id', 'eq', 2), r('id', 'eq', 3)],
    },
  );
  // ZoneMinder's own seed filter (minus DiskPercent): numbers, "0" bracket counts, IS NOT NULL, sort, limit.
  const seed = parse(
    [term('Archived', '=', 0), term('EndDateTime', 'IS NOT', 'NULL', { cnj: 'and', obr: '0', cbr: '0' })],
    { sort_field: 'Id', sort_asc: 1, limit: 100 },
  );
  t.deepEqual(seed, {
    where: { match: 'all', rules: [r('archived', 'eq', 0), r('end_time', 'is_not_null', null)] },
    sort: { field: 'id', dir: 'asc' },
    limit: 100,
  });
  t.deepEqual(
    parse([term('MonitorId', '=[]', '1, 2,3'), term('DateTime', '>=', '-1 day'), term('Name', 'not like', 'x')]).where
      .rules,
    [r('monitor_id', 'in', ['1', '2', '3']), r('start_time', 'gte', '-1 day'), r('name', 'not_like', 'x')],
  );
  t.deepEqual(parse([]).where, { match: 'all', rules: [] });
  t.deepEqual(zmJsonToFilter('{}'), { where: { match: 'all', rules: [] }, sort: null, limit: null });
  t.deepEqual(
    parse([], { sort_field: 'Secs', sort_asc: '0' }).sort,
    { field: 'length', dir: 'desc' },
    'Perl truthiness of sort_asc',
  );
});

test('round trip: tree → Query_json → tree keeps the meaning', (t) => {
  const trees = [
    all(
      r('monitor_id', 'in', ['1', '2']),
      any(r('name', 'like', 'door'), all(r('max_score', 'gte', '50'), r('cause', 'ne', 'Signal'))),
      r('end_time', 'is_not_null', null),
    ),
    any(
      all(r('id', 'eq', '1'), r('id', 'eq', '2')),
      all(r('id', 'eq', '3'), any(r('id', 'eq', '4'), r('id', 'eq', '5'))),
    ),
    all(r('start_time', 'gte', '-2 hours')),
  ];
  for (const where of trees) {
    const back = zmJsonToFilter(
      JSON.stringify(filterToZmQuery(q(where, { sort: { field: 'monitor_name', dir: 'asc' } }))),
    );
    t.deepEqual(back.where, where);
    t.deepEqual(back.sort, { field: 'monitor_name', dir: 'asc' });
  }
});

test('Query_json validation names the term: unknown attribute or operator, brackets, conjunctions, values', (t) => {
  const fails = (json: string, field: string, message?: RegExp) => {
    const err = t.throws(() => zmJsonToFilter(json, utc)) as any;
    t.deepEqual(
      err.details.map((d: string[]) => d[0]),
      [field],
      json,
    );
    if (message) t.regex(err.details[0][1], message);
  };
  fails(
    '{"terms":[{"attr":"Id","op":"=","val":1},{"cnj":"and","attr":"DiskPercent","op":">=","val":95}]}',
    'query_json.terms[1].attr',
    /unsupported attribute "DiskPercent"/,
  );
  fails('{"terms":[{"attr":"Id","op":"<>","val":1}]}', 'query_json.terms[0].op', /unsupported operator "<>"/);
  fails('{"terms":[{"attr":"Id","op":"IS","val":"Odd"}]}', 'query_json.terms[0].val');
  fails(
    '{"terms":[{"attr":"Id","op":"=","val":1},{"cnj":"xor","attr":"Id","op":"=","val":2}]}',
    'query_json.terms[1].cnj',
  );
  fails('{"terms":[{"attr":"Id","op":"=","val":1,"obr":"1"}]}', 'query_json.terms');
  fails('{"terms":[{"attr":"Id","op":"=","val":1,"cbr":"1"}]}', 'query_json.terms');
  fails('{"terms":[{"attr":"Id","op":"=","val":1,"obr":"x"}]}', 'query_json.terms[0].obr');
  fails('{"terms":[{"attr":"Id","op":"=","val":"1 OR 1=1"}]}', 'query_json.terms[0].value');
  fails('{"terms":[{"attr":"StartDateTime","op":">=","val":"last week"}]}', 'query_json.terms[0].value');
  fails('{"terms":{}}', 'query_json.terms');
  fails('not json', 'query_json');
  fails('[]', 'query_json');
  fails('{"terms":[],"sort_field":"Password"}', 'query_json.sort_field');
  fails('{"terms":[],"limit":"ten"}', 'query_json.limit');
  t.notThrows(
    () => zmJsonToFilter('{"terms":[{"attr":"Id","op":"=","val":1},{"attr":"Id","op":"=","val":2}]}', utc),
    'a missing cnj joins with and',
  );
});

test('shape check: names the node; enforces depth, size, and that a node is a group or a rule', (t) => {
  const fails = (query: unknown, field: string, prefix?: string) => {
    const err = t.throws(() => checkFilterShape(query, prefix)) as any;
    t.deepEqual(
      err.details.map((d: string[]) => d[0]),
      [field],
    );
  };
  fails({}, 'where');
  fails({ where: [] }, 'where');
  fails({ where: all(r('nope', 'eq', 1)) }, 'filter.where.rules[0].field', 'filter.');
  fails({ where: all(r('id', 'nope', 1)) }, 'where.rules[0].op');
  fails({ where: all(r('id', 'regexp', 'x')) }, 'where.rules[0].op');
  fails({ where: all('x') }, 'where.rules[0]');
  fails({ where: { match: 'all', rules: 'x' } }, 'where.rules');
  fails({ where: all(), sort: { field: 'x' } }, 'sort.field');
  fails({ where: all(), sort: { field: 'id', dir: 'up' } }, 'sort.dir');
  fails({ where: all(), limit: 1.5 }, 'limit');
  t.notThrows(() => checkFilterShape({ where: r('id', 'eq', 1) }), 'a rule may be the root');
});

test('zmfilter.pl safety: quotes, backslashes, commas and edge double quotes in saved values are reported', (t) => {
  const tree = q(
    all(
      r('name', 'eq', "O'Brien"),
      r('notes', 'like', 'a\\b'),
      r('cause', 'eq', 'a,b'),
      r('name', 'in', ['ok', '"quoted"']),
      r('monitor_id', 'eq', 1),
      r('name', 'eq', 'fine; -- %_ ☕'),
    ),
  );
  t.deepEqual(
    zmfilterUnsafeValues(tree).map(([p]) => p),
    ['where.rules[0].value', 'where.rules[1].value', 'where.rules[2].value', 'where.rules[3].value[1]'],
  );
});
