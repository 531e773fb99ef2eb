// Field tables: one line per column of a wide table (JSON name, column, storage kind and the
// few rules that differ from the kind's defaults). The table drives the row ↔ JSON conversions in
// the service and scripts/generate-dtos.mjs writes the request/response interfaces tsoa reads
// from it (src/generated/dto/), so each column is described once.

/**
 * u8…u64 unsigned (u64: BIGINT, sent as a number), i8…i32 signed; flag = BOOLEAN sent as 0/1; dec = DECIMAL;
 * object = a structured value whose type `schemaType` names (a derived field).
 */
export type FieldKind =
  | 'u8'
  | 'u16'
  | 'u32'
  | 'u64'
  | 'i8'
  | 'i24'
  | 'i32'
  | 'flag'
  | 'boolean'
  | 'dec'
  | 'float'
  | 'str'
  | 'enum'
  | 'object';

export interface Field<Column extends string = string> {
  json: string;
  column: Column;
  kind: FieldKind;
  /** Column accepts NULL (a JSON null then clears it; otherwise null means "leave as is"). */
  nullable: boolean;
  /** varchar/tinytext/text length in characters. */
  maxLength?: number;
  /** Not part of the response (write-only secrets). */
  writeOnly?: boolean;
  /** Not writable through the API (derived or maintained elsewhere). */
  readOnly?: boolean;
  /** Sent instead of NULL where the response declares the field non-null. */
  nullAs?: string | number;
  /** Accepted range when narrower than the column type (0/1 switches, field rules, decimals); Infinity: no bound. */
  range?: [number, number];
  /** Description when not "Table.Column." (the response's too where the table says docInResponse). */
  doc?: string;
  /** The request's description when it differs; a read-only field with one is accepted and ignored. */
  inputDoc?: string;
  /** The response declares the field nullable though the column is not (older schemas). */
  responseNullable?: boolean;
  /** Enums: the request type's name and the stored values (the response sends them as stored). */
  enumType?: string;
  values?: readonly string[];
  /** Enums: older spellings accepted on input → the stored value. */
  variants?: Readonly<Record<string, string>>;
  /** A regular expression the request value must match. */
  pattern?: string;
  /** A named scalar (DtoTable.scalars) or imported type (DtoTable.imports) used as the field's type in both interfaces. */
  schemaType?: string;
  /**
   * Not a column of its own: declared in the interfaces, but the service computes it from `column`
   * (rowToJson takes its value from `derived`; jsonToColumns leaves it to the service).
   */
  derived?: boolean;
  /** The response's type when not derived from the kind (an enum type, say). */
  responseType?: string;
  /**
   * The requests' type when it differs from the response's. In the input interface it is written
   * `null | Type` (tsoa tries union members in order and would coerce null to false for a boolean
   * member tried first, turning "no change" into 0); a selection request (DtoTable.requests)
   * gives it no validation tags.
   */
  inputType?: string;
  /** Enums: the description of the generated enum type when not "Table.Column: the stored values.". */
  enumDoc?: string;
  /** Decimals validated and described as doubles (@isDouble). */
  isDouble?: boolean;
  /** Strings: at least this many characters. */
  minLength?: number;
  /** The update request's description when it differs from the create request's (DtoTable.extend). */
  updateDoc?: string;
}

/** A named type with its validation tags, e.g. a 0/1 flag (a number unless `type` says otherwise). */
export interface DtoScalar {
  name: string;
  doc: string;
  tags: string[];
  type?: string;
}

/** Integer ranges of the column types (MariaDB strict mode refuses anything outside). */
export const INT_RANGES: Partial<Record<FieldKind, [number, number]>> = {
  u8: [0, 255],
  u16: [0, 65535],
  u32: [0, 4294967295],
  u64: [0, Number.MAX_SAFE_INTEGER],
  i8: [-128, 127],
  i24: [-8388608, 8388607],
  i32: [-2147483648, 2147483647],
  flag: [0, 1],
};

export type FieldSpec<Column extends string> = [
  json: string,
  column: Column,
  kind: string,
  extra?: Partial<Field<Column>>,
];

/** Spec lines → fields. A kind with a trailing '?' = nullable column; 'str:N' = at most N characters. */
export function fieldTable<Column extends string>(specs: FieldSpec<Column>[]): readonly Field<Column>[] {
  return specs.map(([json, column, spec, extra]) => {
    const [kind, length] = spec.replace(/\?$/, '').split(':');
    return {
      json,
      column,
      kind: kind as FieldKind,
      nullable: spec.endsWith('?'),
      ...(length ? { maxLength: Number(length) } : {}),
      ...extra,
    };
  });
}

/** How a request interface (DtoTable.requests) takes one field of the table. */
export interface DtoRequestRule {
  required?: boolean;
  /** The description in this request (default the field's input description). */
  doc?: string;
  /** The type in this request, without validation tags nor the table's description (e.g. boolean for a 0/1 column). */
  type?: string;
}

/** A request interface that picks fields of the table, in its own order. */
export interface DtoRequest {
  name: string;
  doc?: string;
  fields: ReadonlyArray<string | readonly [string, DtoRequestRule]>;
}

/** The table's fields a request picks, in the request's order (for jsonToColumns). */
export function requestFields(fields: readonly Field[], request: DtoRequest): Field[] {
  return request.fields.map((entry) => {
    const json = typeof entry === 'string' ? entry : entry[0];
    const field = fields.find((f) => f.json === json);
    if (!field) throw new Error(`${request.name}: no field ${json}`);
    return field;
  });
}

/** A generated interface pair: the response and the request body's writable columns. */
export interface DtoTable {
  /** File name in src/generated/dto/. */
  name: string;
  table: string;
  response: string;
  responseDoc?: string;
  /** The request interface (none: the table generates the response only). */
  input?: string;
  inputDoc?: string;
  /** Fields the create/update requests declare themselves. */
  inputExclude?: string[];
  /** Fields the input interface lists first, in this order (the response's order otherwise). */
  inputFirst?: string[];
  /**
   * Create and update requests that extend the input interface with these fields (required on
   * create, optional on update); the input interface leaves them out.
   */
  extend?: { create: string; update: string; fields: string[] };
  /** Further request interfaces, each a selection of the fields. */
  requests?: readonly DtoRequest[];
  /** Types the fields name (schemaType) from other modules: module path (from src/generated/dto/) → names. */
  imports?: Record<string, string[]>;
  /** Describe each property (and enum type) as "Table.Column." (default true). */
  describeColumns?: boolean;
  /** Field docs describe the response's properties too. */
  docInResponse?: boolean;
  /** A create request with every input field required (the input interface is then the update's). */
  create?: string;
  /** Nullable response properties are also optional. */
  nullableOptional?: boolean;
  scalars?: DtoScalar[];
  fields: readonly Field[];
}

export interface RowToJsonOptions {
  /** Enums: the stored value → the value sent (default as stored). */
  enumOut?: (f: Field, stored: string) => string;
  /** The values of the derived fields, computed by the service. */
  derived?: Record<string, unknown>;
}

/** Row → JSON by the table: BOOLEAN flags as 0/1, decimals as numbers, NULL as `nullAs`. */
export function rowToJson(
  fields: readonly Field[],
  row: object,
  { enumOut = (_f, v) => v, derived = {} }: RowToJsonOptions = {},
): Record<string, unknown> {
  const cells = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.writeOnly) continue;
    if (f.derived) {
      // Sent as the service computed it; left undefined, the field is omitted.
      if (derived[f.json] !== undefined) out[f.json] = derived[f.json];
      continue;
    }
    const v = cells[f.column];
    if (v === null || v === undefined) out[f.json] = f.nullAs ?? null;
    else if (f.kind === 'flag') out[f.json] = v ? 1 : 0;
    else if (f.kind === 'u64') out[f.json] = Number(v);
    else if (f.kind === 'boolean') out[f.json] = Boolean(v);
    else if (f.kind === 'dec') out[f.json] = Number(String(v));
    // FLOAT columns read back as the nearest double of a single (0.4 → 0.4000000059604645).
    else if (f.kind === 'float') out[f.json] = Number((v as number).toPrecision(7));
    else if (f.kind === 'enum') out[f.json] = enumOut(f, String(v));
    // Raw queries return unsigned INTs as bigint.
    else if (typeof v === 'bigint' && f.kind in INT_RANGES) out[f.json] = Number(v);
    else out[f.json] = v;
  }
  return out;
}

/** Request body → column values. null clears a nullable column and is ignored otherwise. */
export function jsonToColumns(
  fields: readonly Field[],
  body: object,
  enumIn: (f: Field, given: string) => string = (f, v) => f.variants?.[v] ?? v,
): Record<string, unknown> {
  const given = body as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  for (const f of fields) {
    const v = given[f.json];
    if (f.readOnly || f.derived || v === undefined) continue;
    if (v === null) {
      if (f.nullable) data[f.column] = null;
    } else if (f.kind === 'flag') data[f.column] = v === 1 || v === true;
    // A request may take a 0/1 integer column as a boolean.
    else if (typeof v === 'boolean' && f.kind in INT_RANGES) data[f.column] = v ? 1 : 0;
    else if (f.kind === 'u64') data[f.column] = BigInt(v as number);
    else if (f.kind === 'enum') data[f.column] = enumIn(f, String(v));
    else data[f.column] = v;
  }
  return data;
}
