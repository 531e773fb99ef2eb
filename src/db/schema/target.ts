// The target schema: ZoneMinder 1.39.22 exactly (generated tables + hand-written foreign keys,
// pinned column charsets and trigger bodies) plus zmgate's own `zmgate_` tables.
import { ZONEMINDER_COLUMN_CHARSETS } from './column-charsets.js';
import { ZONEMINDER_FOREIGN_KEYS } from './foreign-keys.js';
import { SERVICE_TABLES } from './service-tables.js';
import { ZONEMINDER_TRIGGERS } from './triggers/index.js';
import type { SchemaDef, TableDef } from './types.js';
import { ZONEMINDER_TABLES, ZONEMINDER_VERSION } from './zoneminder-tables.js';

export { ZONEMINDER_VERSION };

function zoneminderTables(): TableDef[] {
  return ZONEMINDER_TABLES.map((table) => ({
    name: table.name,
    engine: 'InnoDB',
    columns: table.columns.map((column) => ({
      ...column,
      ...ZONEMINDER_COLUMN_CHARSETS.get(`${table.name}.${column.name}`),
    })),
    indexes: table.indexes.map((index) => ({ ...index, columns: [...index.columns] })),
    foreignKeys: (ZONEMINDER_FOREIGN_KEYS.get(table.name) ?? []).map((fk) => ({ ...fk })),
  }));
}

/** A fresh copy each call, so callers may modify what they get. */
export function targetSchema(): SchemaDef {
  return {
    tables: [...SERVICE_TABLES.map((table) => structuredClone(table)), ...zoneminderTables()],
    triggers: ZONEMINDER_TRIGGERS.map((trigger) => ({ ...trigger })),
  };
}
