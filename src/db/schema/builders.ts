// Small constructors that keep the long table listings readable: one line per column or index.
import type { ColumnDef, IndexDef } from './types.js';

interface ColumnOptions {
  /** Nullable column (information_schema IS_NULLABLE = 'YES'). Default: NOT NULL. */
  null?: boolean;
  /** information_schema COLUMN_DEFAULT text; omit for "no default". */
  default?: string;
  extra?: string;
  charset?: string;
  collation?: string;
}

export function col(name: string, type: string, options: ColumnOptions = {}): ColumnDef {
  const column: ColumnDef = {
    name,
    type,
    nullable: options.null ?? false,
    default: options.default ?? null,
    extra: options.extra ?? '',
  };
  if (options.charset) column.charset = options.charset;
  if (options.collation) column.collation = options.collation;
  return column;
}

export function primary(...columns: string[]): IndexDef {
  return { name: 'PRIMARY', columns, unique: true };
}

export function key(name: string, ...columns: string[]): IndexDef {
  return { name, columns, unique: false };
}

export function unique(name: string, ...columns: string[]): IndexDef {
  return { name, columns, unique: true };
}
