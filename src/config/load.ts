// loadConfig: layers the sources, lowest precedence first:
//   zm.conf + conf.d  <  base.toml  <  <APP_PROFILE>.toml  <  operator file  <  APP_* variables
// It only reads files and the given environment; notices are returned for the caller to log.
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkCombinations,
  DEFAULT_SOURCE,
  dropShadowedSocket,
  repairBursts,
  settleOrigins,
  type Merged,
} from './checks.js';
import { envEntries, flattenToml, readTomlFile, toLayer, type Layer } from './layers.js';
import { SETTING_KEYS, SETTINGS, type SettingKey } from './schema.js';
import { ConfigError, type AppConfig, type ConfigNotice, type LoadedConfig } from './types.js';
import { readZmConfFiles, zmConfEntries } from './zmconf.js';

export interface LoadOptions {
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where base.toml and the profile files are; defaults to <package root>/config. */
  configDir?: string;
  /** The operator file used when APP_CONFIG_FILE is not set; defaults to /etc/zmgate/prod.toml. */
  defaultOperatorFile?: string;
}

export const PROFILES = ['dev', 'test', 'test-db', 'prod'] as const;
export type Profile = (typeof PROFILES)[number];
export const DEFAULT_OPERATOR_FILE = '/etc/zmgate/prod.toml';

// This module sits two levels below the package root both as src/config/load.ts (tsx) and
// as dist/config/load.js (compiled).
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Package files are named relative to the package root (`config/base.toml`), others in full. */
function display(file: string): string {
  const rel = relative(PACKAGE_ROOT, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

function readProfile(env: NodeJS.ProcessEnv): Profile | null {
  const value = env.APP_PROFILE;
  if (value === undefined || value === '') return null;
  const profile = PROFILES.find((p) => p === value);
  if (!profile) {
    throw new ConfigError(
      'APP_PROFILE',
      'environment',
      `must be one of ${PROFILES.join(', ')} (got ${JSON.stringify(value)})`,
    );
  }
  return profile;
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const configDir = options.configDir ?? join(PACKAGE_ROOT, 'config');
  const notices: ConfigNotice[] = [];
  const read: string[] = [];
  const layers: Layer[] = [];

  const addFile = (file: string, whenMissing: () => void) => {
    const name = display(file);
    const table = readTomlFile(file, name);
    if (table === undefined) return whenMissing();
    read.push(name);
    layers.push(toLayer(flattenToml(table, name), notices));
  };

  const base = join(configDir, 'base.toml');
  addFile(base, () => {
    throw new ConfigError('base.toml', display(base), 'the packaged defaults file is missing');
  });

  const profile = readProfile(env);
  if (profile) {
    const file = join(configDir, `${profile}.toml`);
    addFile(file, () => {
      throw new ConfigError('APP_PROFILE', 'environment', `profile file ${display(file)} does not exist`);
    });
  }

  const explicit = env.APP_CONFIG_FILE;
  if (explicit !== undefined && explicit !== '') {
    addFile(explicit, () => {
      throw new ConfigError('APP_CONFIG_FILE', 'environment', `file ${explicit} does not exist`);
    });
  } else {
    const file = options.defaultOperatorFile ?? DEFAULT_OPERATOR_FILE;
    addFile(file, () =>
      notices.push({
        level: 'info',
        msg: `no operator configuration at ${file}; using packaged defaults`,
        source: file,
      }),
    );
  }

  layers.push(toLayer(envEntries(env, notices), notices));

  // Where zm.conf lives is itself a setting, so the layers above decide it; its values then
  // go underneath them all.
  let configPath = SETTINGS['zoneminder.config_path'].default;
  for (const layer of layers)
    configPath = (layer.get('zoneminder.config_path')?.value as string | undefined) ?? configPath;
  const zm = readZmConfFiles(configPath, notices);
  read.unshift(...zm.files);
  layers.unshift(toLayer(zmConfEntries(zm.values), notices));

  const merged = merge(layers);
  settleOrigins(merged, notices);
  repairBursts(merged, notices);
  dropShadowedSocket(merged, notices);
  checkCombinations(merged);

  notices.push({
    level: 'info',
    msg: `configuration read from: ${read.join(', ')}${profile ? ` (profile ${profile})` : ''}`,
  });
  return { config: build(merged.values, profile), notices, sources: merged.sources };
}

/** Later layers win; keys no layer sets take the built-in default. */
function merge(layers: Layer[]): Merged {
  const m: Merged = { values: new Map(), sources: {}, layerOf: new Map() };
  layers.forEach((layer, index) => {
    for (const [key, entry] of layer) {
      m.values.set(key, entry.value);
      m.sources[key] = entry.source;
      m.layerOf.set(key, index);
    }
  });
  for (const key of SETTING_KEYS) {
    if (m.values.has(key)) continue;
    const fallback: unknown = SETTINGS[key].default;
    m.values.set(key, Array.isArray(fallback) ? [...fallback] : fallback);
    m.sources[key] = DEFAULT_SOURCE;
    m.layerOf.set(key, -1);
  }
  return m;
}

/** Dotted keys back into the nested AppConfig. */
function build(values: Map<SettingKey, unknown>, profile: Profile | null): AppConfig {
  const root: Record<string, unknown> = { profile };
  for (const key of SETTING_KEYS) {
    const parts = key.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]] = values.get(key);
  }
  return root as unknown as AppConfig;
}
