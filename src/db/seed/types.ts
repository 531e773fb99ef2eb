// The shape of the generated seed modules in ./data: one table, its column names, and its rows
// as arrays of values in column order. Values stay as ZoneMinder's dump spelled them (strings or
// null); MariaDB coerces them into the column types on insert.
export interface SeedTable {
  table: string;
  columns: readonly string[];
  rows: readonly (readonly (string | null)[])[];
}
