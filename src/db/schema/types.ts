// The declarative schema form shared by the target (what the database should look like) and
// by introspection (what it does look like), so the two can be compared field by field.
//
// Values are spelled the way MariaDB's information_schema reports them, because that is what
// introspection reads back: COLUMN_TYPE ('int(10) unsigned'), COLUMN_DEFAULT ("''", '0', 'NULL',
// 'current_timestamp()'), EXTRA ('auto_increment', 'on update current_timestamp()').

export interface ColumnDef {
  name: string;
  /** information_schema COLUMN_TYPE, e.g. "enum('None','View')" or 'decimal(10,2) unsigned'. */
  type: string;
  nullable: boolean;
  /**
   * information_schema COLUMN_DEFAULT: a quoted literal ("''", "'Percent'"), a bare number or
   * expression ('0', 'current_timestamp()'), the word 'NULL' for an explicit NULL default, or
   * null when the column has no default at all (NOT NULL columns such as Events.StateId).
   */
  default: string | null;
  /** information_schema EXTRA; '' when empty. */
  extra: string;
  /**
   * Column character set / collation. Only set where the column deliberately differs from the
   * table default (ZoneMinder keeps Users.Username and Tags.Name case- and accent-exact with
   * latin1_bin). Left out, the column follows the table and is not compared.
   */
  charset?: string;
  collation?: string;
}

export interface IndexDef {
  /** 'PRIMARY' for the primary key. */
  name: string;
  /** Column names in index order; a prefix index part is written 'Col(16)'. */
  columns: string[];
  unique: boolean;
}

export type ForeignKeyAction = 'RESTRICT' | 'CASCADE' | 'SET NULL' | 'NO ACTION' | 'SET DEFAULT';

export interface ForeignKeyDef {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: ForeignKeyAction;
  onUpdate: ForeignKeyAction;
}

export interface TableDef {
  name: string;
  /** Storage engine; every ZoneMinder table is InnoDB (ZM_MYSQL_ENGINE's default). */
  engine?: string;
  /**
   * Table character set / collation. ZoneMinder's create script names none, so its tables
   * inherit the database default; only the service's own tables pin one.
   */
  charset?: string;
  collation?: string;
  columns: ColumnDef[];
  indexes: IndexDef[];
  foreignKeys: ForeignKeyDef[];
}

export type TriggerTiming = 'BEFORE' | 'AFTER';
export type TriggerEvent = 'INSERT' | 'UPDATE' | 'DELETE';

export interface TriggerDef {
  name: string;
  table: string;
  timing: TriggerTiming;
  event: TriggerEvent;
  /** The statement after FOR EACH ROW (usually BEGIN ... END); absent when unknown. */
  body?: string;
}

export interface SchemaDef {
  tables: TableDef[];
  triggers: TriggerDef[];
}
