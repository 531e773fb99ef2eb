// The configuration loader's public surface.
export { loadConfig, PROFILES, DEFAULT_OPERATOR_FILE, type LoadOptions, type Profile } from './load.js';
export { originMatcher, DEFAULT_ALLOWED_ORIGINS } from './origins.js';
export { parseDbHost, parseZmConf } from './zmconf.js';
export { SETTINGS, SETTING_KEYS, type SettingKey } from './schema.js';
export { ConfigError, type AppConfig, type ConfigNotice, type LimiterConfig, type LoadedConfig } from './types.js';
