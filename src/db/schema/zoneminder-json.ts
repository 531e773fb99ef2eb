// Reads ZoneMinder's information_schema dump format (data/zoneminder/schema/*.json:
// {tables: {Name: {columns, indexes}}, triggers}) into our SchemaDef. Pure: the caller reads the
// file. Used by tests (to compare with the dump) and to build old-version fixtures; the service
// itself never reads the shared files.
import type { SchemaDef, TriggerEvent, TriggerTiming } from './types.js';

export interface ZoneMinderSchemaJson {
  tables: Record<
    string,
    {
      columns: { name: string; type: string; null: boolean; default?: string; extra?: string }[];
      indexes: Record<string, { columns: string[]; unique: boolean }>;
    }
  >;
  triggers: { name: string; table: string; timing: string; event: string }[];
}

export function fromZoneMinderJson(json: ZoneMinderSchemaJson): SchemaDef {
  return {
    tables: Object.entries(json.tables).map(([name, table]) => ({
      name,
      columns: table.columns.map((column) => ({
        name: column.name,
        type: column.type,
        nullable: column.null,
        default: column.default ?? null,
        extra: column.extra ?? '',
      })),
      indexes: Object.entries(table.indexes).map(([indexName, index]) => ({
        name: indexName,
        columns: [...index.columns],
        unique: index.unique,
      })),
      foreignKeys: [],
    })),
    triggers: json.triggers.map((trigger) => ({
      name: trigger.name,
      table: trigger.table,
      timing: trigger.timing as TriggerTiming,
      event: trigger.event as TriggerEvent,
    })),
  };
}
