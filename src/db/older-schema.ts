// Prisma's reads on the database of an older ZoneMinder (1.36, 1.38): the generated client asks
// for every column of 1.39.22, so a table the installed version has with fewer columns would fail
// the whole read. Here a read leaves out the columns the live table lacks and fills them in the
// result as 1.39's defaults, typed as Prisma gives that column (the monitor modes derived from
// Function). A write leaves out a missing column whose value is its default (or a mode column
// beside the Function that carries it), and is refused (400) when it would store anything else
// there. docs/zoneminder/coexistence.md, "Reading an older database".
import { InvalidInputError } from '../errors.js';
import { Prisma } from '../generated/prisma/client.js';
import { kindOf, type Tables } from './live-columns.js';
import type { ColumnDef } from './schema/types.js';
import { targetSchema } from './schema/index.js';

const READS = new Set(['findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count']);
/** Writes that return the row (their columns are left out and filled in as a read's). */
const ROW_WRITES = new Set(['create', 'update', 'upsert', 'delete']);
/** Writes whose data names columns. */
const DATA_WRITES = new Set(['create', 'update', 'upsert', 'updateMany', 'createMany']);
/** What each read answers when its condition on a missing column can hold for no row. */
const NOTHING: Record<string, () => unknown> = {
  findUnique: () => null,
  findFirst: () => null,
  findMany: () => [],
  count: () => 0,
};

/** 1.36's Function → the three 1.37.12 mode columns (docs/zoneminder/database.md). */
const MODES: Record<string, [capturing: string, analysing: string, recording: string]> = {
  None: ['None', 'None', 'None'],
  Monitor: ['Always', 'None', 'None'],
  Modect: ['Always', 'Always', 'OnMotion'],
  Record: ['Always', 'None', 'Always'],
  Mocord: ['Always', 'Always', 'Always'],
  Nodect: ['Always', 'None', 'OnMotion'],
};
const MODE_COLUMNS = ['Capturing', 'Analysing', 'Recording'];

/** The 1.39 default of `column` as Prisma returns a value of its type. */
export function prismaDefault(column: ColumnDef): unknown {
  const raw = column.default;
  if (raw === null || raw === 'NULL' || /\(/.test(raw)) return null;
  const text = raw.replace(/^'(.*)'$/s, '$1').replace(/''/g, "'");
  const type = column.type.toLowerCase();
  if (/^tinyint\(1\)/.test(type)) return text !== '0';
  if (/^bigint/.test(type)) return BigInt(text);
  if (/^(tinyint|smallint|mediumint|int)/.test(type)) return Number(text);
  if (/^(float|double)/.test(type)) return Number(text);
  if (/^decimal/.test(type)) return new Prisma.Decimal(text);
  if (/^(date|time)/.test(type)) return null;
  return text;
}

type Row = Record<string, unknown>;

/** A create's data of plain column values only (no nested relation writes), insertable as it is. */
function isScalarRow(data: unknown): data is Row {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return false;
  return Object.values(data as Row).every(
    (v) => v === null || typeof v !== 'object' || v instanceof Date || v instanceof Prisma.Decimal,
  );
}

/**
 * Whether `value` meets a Prisma scalar condition (a value, `{equals}`, `{not}` or `{in}`);
 * undefined for any other condition.
 */
function meets(value: unknown, condition: unknown): boolean | undefined {
  const same = (a: unknown, b: unknown) => String(a) === String(b);
  if (condition === null || typeof condition !== 'object' || condition instanceof Prisma.Decimal)
    return same(value, condition);
  const c = condition as Row;
  const keys = Object.keys(c);
  if (keys.length === 1 && 'equals' in c) return same(value, c.equals);
  if (keys.length === 1 && 'not' in c) return !same(value, c.not);
  if (keys.length === 1 && 'in' in c && Array.isArray(c.in)) return c.in.some((v) => same(value, v));
  return undefined;
}

/** A stored value read as text, as Prisma gives a value of `column`'s 1.39 type. */
function asPrisma(column: ColumnDef, text: string): unknown {
  switch (kindOf(column.type)) {
    case 'int':
      return /^bigint/i.test(column.type) ? BigInt(text) : Number(text);
    case 'decimal':
      return new Prisma.Decimal(text);
    case 'float':
      return Number(text);
    default:
      return text;
  }
}

interface Plan {
  table: string;
  /** Columns of the model the live table lacks. */
  missing: ColumnDef[];
  /**
   * Columns the live table stores as another kind of value (1.36's DefaultScale is a number, 1.39's
   * text; its zones' pixel counts integers, 1.39's decimals): read apart, as text, and converted.
   */
  retyped: ColumnDef[];
  /** The table's first primary-key column (asked for when a select names only missing columns). */
  key: string;
  /** Whether the live table has 1.36's Function (the modes are derived from it). */
  hasFunction: boolean;
}

export class OlderSchemaReads {
  #plans = new Map<string, Plan | null>();
  #from: Tables | null = null;

  /**
   * `tables`: the live database's columns (columnCatalog, live-columns.ts); `raw`: a statement of
   * its own (the retyped columns).
   */
  constructor(
    private readonly tables: () => Promise<Tables>,
    private readonly raw: (sql: string, ...params: unknown[]) => Promise<Row[]>,
    /**
     * A create there: Prisma writes every column that has a default in 1.39's model, so the row
     * is inserted with only the columns given (`insert`, returning its key) and read back through
     * the client (`readBack`, which leaves the missing columns out as any read).
     */
    private readonly creates?: {
      insert: (table: string, columns: string[], values: unknown[]) => Promise<number>;
      readBack: (model: string, args: Row) => Promise<unknown>;
    },
  ) {}

  /** What a read of `model` must leave out, or null when the live table has every column. */
  async plan(model: string): Promise<Plan | null> {
    const tables = await this.tables();
    if (tables !== this.#from) {
      this.#from = tables;
      this.#plans = new Map();
    }
    if (this.#plans.has(model)) return this.#plans.get(model)!;
    const live = tables.get(model);
    const target = targetSchema().tables.find((t) => t.name === model);
    // A table the database lacks altogether is not a column matter: the read fails as it would.
    const missing = live && target ? target.columns.filter((c) => !live.has(c.name)) : [];
    const retyped =
      live && target
        ? target.columns.filter((c) => live.has(c.name) && kindOf(live.get(c.name)!) !== kindOf(c.type))
        : [];
    const key = target?.indexes.find((i) => i.name === 'PRIMARY')?.columns[0] ?? 'Id';
    const plan =
      missing.length || retyped.length
        ? { table: model, missing, retyped, key, hasFunction: !!live?.has('Function') }
        : null;
    this.#plans.set(model, plan);
    return plan;
  }

  /** True for the operations handled here. */
  static handles(model: string | undefined, operation: string): model is string {
    return model !== undefined && (READS.has(operation) || ROW_WRITES.has(operation) || DATA_WRITES.has(operation));
  }

  /** `data` without the missing columns it may leave out; throws InvalidInputError for the others. */
  #writable(plan: Plan, data: unknown): unknown {
    if (Array.isArray(data)) return data.map((d) => this.#writable(plan, d));
    if (!data || typeof data !== 'object') return data;
    const out = { ...(data as Row) };
    for (const c of plan.retyped) {
      const value = out[c.name];
      if (value === undefined || value === null) continue;
      // Stored as an integer there: only a whole number fits.
      if (!/^-?\d+$/.test(String(value)))
        throw new InvalidInputError('Invalid input', [
          [c.name, 'this ZoneMinder database (before 1.39) stores a whole number here'],
        ]);
      // Kept as Prisma's (1.39's) type: the client validates it so, and MariaDB stores '100' as 100.
    }
    for (const c of plan.missing) {
      if (!(c.name in out)) continue;
      const value = out[c.name];
      // The service writes the three modes with the Function they mean (monitors-service.ts).
      const carried = plan.hasFunction && MODE_COLUMNS.includes(c.name) && out.Function !== undefined;
      if (carried || value === undefined || meets(prismaDefault(c), value) === true) {
        delete out[c.name];
        continue;
      }
      throw new InvalidInputError('Invalid input', [
        [c.name, 'this ZoneMinder database (before 1.39) has no such column: only its default can be written'],
      ]);
    }
    return out;
  }

  /**
   * Runs `query` without the missing columns and fills them into what it returns. A top-level
   * condition on a missing column (`Deleted: false`) is judged against the column's default:
   * dropped when the default meets it, and the read answers nothing when it does not.
   */
  async read(
    plan: Plan,
    operation: string,
    args: Row | undefined,
    query: (args: Row) => Promise<unknown>,
  ): Promise<unknown> {
    const next: Row = { ...(args ?? {}) };
    if (DATA_WRITES.has(operation)) {
      for (const key of ['data', 'create', 'update']) if (key in next) next[key] = this.#writable(plan, next[key]);
      if (operation === 'create' && plan.missing.length && this.creates && isScalarRow(next.data))
        return this.#create(plan, next);
      if (!ROW_WRITES.has(operation)) return query(next);
    }
    if (next.where && typeof next.where === 'object' && !ROW_WRITES.has(operation)) {
      const where = { ...(next.where as Row) };
      for (const c of plan.missing) {
        if (!(c.name in where)) continue;
        const judged = meets(prismaDefault(c), where[c.name]);
        // A condition not judged here stays: the database refuses it, answered as 503.
        if (judged === undefined) continue;
        if (!judged) {
          const nothing = NOTHING[operation];
          if (nothing) return nothing();
          continue;
        }
        delete where[c.name];
      }
      next.where = where;
    }
    if (operation === 'count') return query(next);
    const leftOut = [...plan.missing, ...plan.retyped];
    let asked: ColumnDef[];
    const extra = new Set<string>();
    if (next.select && typeof next.select === 'object') {
      const select = { ...(next.select as Row) };
      asked = leftOut.filter((c) => select[c.name] === true);
      for (const c of leftOut) delete select[c.name];
      // A mode column asked for: read Function to derive it from.
      if (plan.hasFunction && select.Function !== true && asked.some((c) => MODE_COLUMNS.includes(c.name))) {
        select.Function = true;
        extra.add('Function');
      }
      // The key: to read the retyped columns by, and so that a row still comes back.
      if (select[plan.key] !== true) {
        select[plan.key] = true;
        extra.add(plan.key);
      }
      next.select = select;
    } else {
      const omit = { ...((next.omit as Row | undefined) ?? {}) };
      asked = leftOut.filter((c) => omit[c.name] !== true);
      for (const c of leftOut) omit[c.name] = true;
      next.omit = omit;
    }
    const result = await query(next);
    const rows = (Array.isArray(result) ? result : [result]).filter((r): r is Row => !!r && typeof r === 'object');
    const retyped = asked.filter((c) => plan.retyped.includes(c));
    const stored = retyped.length && rows.length ? await this.#readRetyped(plan, retyped, rows) : null;
    for (const r of rows) {
      for (const c of asked) {
        if (plan.missing.includes(c)) r[c.name] = prismaDefault(c);
        else r[c.name] = stored?.get(String(r[plan.key]))?.[c.name] ?? null;
      }
      const modes = typeof r.Function === 'string' ? MODES[r.Function] : undefined;
      if (modes) MODE_COLUMNS.forEach((name, i) => asked.some((c) => c.name === name) && (r[name] = modes[i]));
      for (const name of extra) delete r[name];
    }
    return result;
  }

  /** A create with only the given columns, answered as Prisma would (select/omit kept). */
  async #create(plan: Plan, args: Row): Promise<unknown> {
    const data = args.data as Row;
    // A null is left to the column's own default: 1.36 has NOT NULL columns (Events.Cause) where
    // 1.39 allows NULL, and where both allow it the default is NULL.
    const columns = Object.keys(data).filter((k) => data[k] !== undefined && data[k] !== null);
    const values = columns.map((k) => {
      const v = data[k];
      return v instanceof Prisma.Decimal ? v.toString() : v;
    });
    const inserted = await this.creates!.insert(plan.table, columns, values);
    const key = data[plan.key] ?? inserted;
    const readArgs: Row = { where: { [plan.key]: key } };
    if (args.select) readArgs.select = args.select;
    if (args.omit) readArgs.omit = args.omit;
    return this.creates!.readBack(plan.table, readArgs);
  }

  /** The retyped columns of `rows`, read as text by key and turned into the type Prisma gives them. */
  async #readRetyped(plan: Plan, columns: ColumnDef[], rows: Row[]): Promise<Map<string, Row>> {
    const keys = rows.map((r) => r[plan.key]);
    const list = columns.map((c) => `CAST(\`${c.name}\` AS CHAR) AS \`${c.name}\``).join(', ');
    const found = await this.raw(
      `SELECT \`${plan.key}\` AS k, ${list} FROM \`${plan.table}\` WHERE \`${plan.key}\` IN (${keys.map(() => '?').join(', ')})`,
      ...keys,
    );
    const out = new Map<string, Row>();
    for (const f of found) {
      const row: Row = {};
      for (const c of columns) row[c.name] = f[c.name] === null ? null : asPrisma(c, String(f[c.name]));
      out.set(String(f.k), row);
    }
    return out;
  }
}
