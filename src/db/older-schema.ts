// Prisma's reads on the database of an older ZoneMinder (1.36, 1.38): the generated client asks
// for every column of 1.39.22, so a table the installed version has with fewer columns would fail
// the whole read. Here a read leaves out the columns the live table lacks and fills them in the
// result as 1.39's defaults, typed as Prisma gives that column (the monitor modes derived from
// Function). docs/zoneminder/coexistence.md, "Reading an older database". Writes are left as
// they are: one that names a missing column still fails, and is answered 503.
import { Prisma } from '../generated/prisma/client.js';
import type { ColumnDef } from './schema/types.js';
import { targetSchema } from './schema/index.js';

/** How long the list of columns is trusted, as in live-columns.ts. */
const TTL_MS = 60_000;

const READS = new Set(['findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count']);
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

interface Plan {
  /** Columns of the model the live table lacks. */
  missing: ColumnDef[];
  /** The table's first primary-key column (asked for when a select names only missing columns). */
  key: string;
  /** Whether the live table has 1.36's Function (the modes are derived from it). */
  hasFunction: boolean;
}

export class OlderSchemaReads {
  #loaded: { at: number; tables: Promise<Map<string, Set<string>>> } | null = null;
  #plans = new Map<string, Plan | null>();

  /** `readColumns`: the live database's columns, as (table, column) rows. */
  constructor(private readonly readColumns: () => Promise<Array<{ t: string; c: string }>>) {}

  /** What a read of `model` must leave out, or null when the live table has every column. */
  async plan(model: string): Promise<Plan | null> {
    if (!this.#loaded || Date.now() - this.#loaded.at > TTL_MS) {
      const tables = this.readColumns().then((rows) => {
        const map = new Map<string, Set<string>>();
        for (const { t, c } of rows) {
          let set = map.get(t);
          if (!set) map.set(t, (set = new Set()));
          set.add(c);
        }
        return map;
      });
      this.#loaded = { at: Date.now(), tables };
      this.#plans = new Map();
      tables.catch(() => {
        if (this.#loaded?.tables === tables) this.#loaded = null;
      });
    }
    const tables = await this.#loaded.tables;
    if (this.#plans.has(model)) return this.#plans.get(model)!;
    const live = tables.get(model);
    const target = targetSchema().tables.find((t) => t.name === model);
    // A table the database lacks altogether is not a column matter: the read fails as it would.
    const missing = live && target ? target.columns.filter((c) => !live.has(c.name)) : [];
    const key = target?.indexes.find((i) => i.name === 'PRIMARY')?.columns[0] ?? 'Id';
    const plan = missing.length ? { missing, key, hasFunction: !!live?.has('Function') } : null;
    this.#plans.set(model, plan);
    return plan;
  }

  /** True for the operations handled here. */
  static handles(model: string | undefined, operation: string): model is string {
    return model !== undefined && READS.has(operation);
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
    if (next.where && typeof next.where === 'object') {
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
    let filled = plan.missing;
    let extra: string | null = null;
    if (next.select && typeof next.select === 'object') {
      const select = { ...(next.select as Row) };
      filled = plan.missing.filter((c) => select[c.name] === true);
      for (const c of plan.missing) delete select[c.name];
      // A mode column asked for alone: read Function to derive it from.
      if (plan.hasFunction && select.Function !== true && filled.some((c) => MODE_COLUMNS.includes(c.name))) {
        select.Function = true;
        extra = 'Function';
      }
      // Asking only for missing columns: ask for the key, so a row still comes back.
      if (!Object.values(select).some(Boolean)) {
        select[plan.key] = true;
        extra = plan.key;
      }
      next.select = select;
    } else {
      const omit = { ...((next.omit as Row | undefined) ?? {}) };
      filled = plan.missing.filter((c) => omit[c.name] !== true);
      for (const c of plan.missing) omit[c.name] = true;
      next.omit = omit;
    }
    const result = await query(next);
    const fill = (row: unknown) => {
      if (!row || typeof row !== 'object') return;
      const r = row as Row;
      for (const c of filled) r[c.name] = prismaDefault(c);
      const modes = typeof r.Function === 'string' ? MODES[r.Function] : undefined;
      if (modes) MODE_COLUMNS.forEach((name, i) => filled.some((c) => c.name === name) && (r[name] = modes[i]));
      if (extra) delete r[extra];
    };
    if (Array.isArray(result)) result.forEach(fill);
    else fill(result);
    return result;
  }
}
