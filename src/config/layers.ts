// Each source (a TOML file, the environment, zm.conf) becomes a layer: validated values by
// dotted key, each with the source it came from. Precedence between layers is load.ts's job.
import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { ALIASES, isSettingKey, isStale, isTable, settingOf, type SettingKey } from './schema.js';
import { ConfigError, type ConfigNotice } from './types.js';
import { BadValue, type ListType } from './values.js';

export interface RawEntry {
  value: unknown;
  source: string;
  /** Shown in errors instead of the dotted key: the ZM_ variable, or the old alias used. */
  name?: string;
  /** An environment string, coerced by the key's type. */
  fromEnv?: boolean;
}

export interface Entry {
  value: unknown;
  source: string;
}

export type Layer = Map<SettingKey, Entry>;

/** Environment variables that steer loading and are not settings. */
export const CONTROL_VARS = new Set(['APP_PROFILE', 'APP_CONFIG_FILE']);

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The one-line start-up error for a bad value; secrets are never echoed. */
export function badValueError(
  key: string,
  source: string,
  allowed: string,
  value: unknown,
  secret = false,
): ConfigError {
  return new ConfigError(key, source, secret ? allowed : `${allowed} (got ${describe(value)})`, value);
}

/** A TOML file's tables, or undefined when the file does not exist. */
export function readTomlFile(file: string, display: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigError(display, 'file system', `cannot be read (${code ?? String(err)})`);
  }
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const what = err.message.split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
      throw new ConfigError('TOML syntax', `${display}, line ${err.line}`, `${what} (column ${err.column})`);
    }
    throw err;
  }
}

function isTableValue(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype;
}

/** TOML tables to dotted-key entries. Known tables are walked; anything else is a leaf. */
export function flattenToml(table: Record<string, unknown>, source: string, prefix = ''): Array<[string, RawEntry]> {
  const out: Array<[string, RawEntry]> = [];
  for (const [name, value] of Object.entries(table)) {
    const key = prefix + name;
    if (isTable(key)) {
      if (!isTableValue(value)) throw new ConfigError(key, source, `must be a table of settings ([${key}])`);
      out.push(...flattenToml(value, source, `${key}.`));
    } else {
      out.push([key, { value, source }]);
    }
  }
  return out;
}

/**
 * Validates raw entries into a layer. Stale keys are dropped silently, unknown keys are
 * reported, old aliases are renamed (the new name wins when both are given).
 */
export function toLayer(raw: Array<[string, RawEntry]>, notices: ConfigNotice[]): Layer {
  const layer: Layer = new Map();
  const aliased: Array<[string, SettingKey, RawEntry]> = [];
  const take = (key: SettingKey, e: RawEntry, name: string) => {
    const setting = settingOf(key);
    try {
      layer.set(key, { value: setting.type.parse(e.value, e.fromEnv ?? false), source: e.source });
    } catch (err) {
      if (err instanceof BadValue) throw badValueError(name, e.source, err.allowed, e.value, setting.secret);
      throw err;
    }
  };
  for (const [key, e] of raw) {
    if (isStale(key)) continue;
    const target = Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
    if (target) aliased.push([key, target, e]);
    else if (isSettingKey(key)) take(key, e, e.name ?? key);
    else notices.push({ level: 'warn', msg: `unknown setting ${key} in ${e.source}; ignored`, key, source: e.source });
  }
  for (const [old, key, e] of aliased) {
    const shadowed = layer.has(key);
    notices.push({
      level: 'warn',
      msg: shadowed
        ? `${old} is deprecated and ignored because ${key} is also set (${e.source})`
        : `${old} is deprecated; rename it to ${key} (${e.source})`,
      key: old,
      source: e.source,
    });
    if (!shadowed) take(key, e, e.name ?? old);
  }
  return layer;
}

/** `APP_SERVER__MIDDLEWARE__BODY_LIMIT_BYTES` -> `server.middleware.body_limit_bytes`. */
export function envNameToKey(name: string): string {
  return name.slice('APP_'.length).toLowerCase().split('__').join('.');
}

/** `server.acme.domains` -> `APP_SERVER__ACME__DOMAINS`. */
export function keyToEnvName(key: string): string {
  return `APP_${key.split('.').join('__').toUpperCase()}`;
}

/**
 * The APP_* variables as entries. A list is either one comma-separated variable or indexed
 * variables `..__0`, `..__1`, which replace the whole list. ALLOWED_ORIGINS is the deprecated
 * spelling of APP_SERVER__ALLOWED_ORIGINS.
 */
export function envEntries(env: NodeJS.ProcessEnv, notices: ConfigNotice[]): Array<[string, RawEntry]> {
  const out: Array<[string, RawEntry]> = [];
  const indexed = new Map<SettingKey, Array<{ index: number; name: string; value: string }>>();
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('APP_') || value === undefined || CONTROL_VARS.has(name)) continue;
    const key = envNameToKey(name);
    const m = /^(.+)\.(\d+)$/.exec(key);
    if (m && isSettingKey(m[1]) && 'item' in settingOf(m[1]).type) {
      const items = indexed.get(m[1]) ?? [];
      items.push({ index: Number(m[2]), name, value });
      indexed.set(m[1], items);
      continue;
    }
    out.push([key, { value, source: `${name} (environment)`, fromEnv: true }]);
  }
  for (const [key, items] of indexed) out.push([key, indexedList(key, items, env)]);

  const legacy = env.ALLOWED_ORIGINS;
  if (legacy !== undefined) {
    const current = keyToEnvName('server.allowed_origins');
    if (env[current] !== undefined || indexed.has('server.allowed_origins')) {
      notices.push({ level: 'warn', msg: `ALLOWED_ORIGINS is deprecated and ignored because ${current} is set` });
    } else {
      notices.push({
        level: 'warn',
        msg: `ALLOWED_ORIGINS is deprecated; use ${current} instead`,
        key: 'server.allowed_origins',
        source: 'ALLOWED_ORIGINS (environment)',
      });
      out.push(['server.allowed_origins', { value: legacy, source: 'ALLOWED_ORIGINS (environment)', fromEnv: true }]);
    }
  }
  return out;
}

function indexedList(
  key: SettingKey,
  items: Array<{ index: number; name: string; value: string }>,
  env: NodeJS.ProcessEnv,
): RawEntry {
  const base = keyToEnvName(key);
  items.sort((a, b) => a.index - b.index);
  if (env[base] !== undefined) {
    throw new ConfigError(
      key,
      `${base} and ${items[0].name} (environment)`,
      `set either ${base} or ${base}__0, __1, ... but not both`,
    );
  }
  const { item } = settingOf(key).type as ListType;
  const values = items.map((it, position) => {
    if (it.index !== position) {
      throw new ConfigError(
        key,
        `${it.name} (environment)`,
        `list indexes must run 0, 1, 2, ... without gaps (missing ${base}__${position})`,
      );
    }
    try {
      return item.parse(it.value, true);
    } catch (err) {
      if (err instanceof BadValue) throw badValueError(key, `${it.name} (environment)`, err.allowed, it.value);
      throw err;
    }
  });
  return { value: values, source: `${base}__0..${items.length - 1} (environment)`, fromEnv: true };
}
