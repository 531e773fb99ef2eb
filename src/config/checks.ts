// What is checked after the layers are merged: repairs that only warrant a notice, and rules
// that involve more than one setting. Single values were validated when their layer was read.
import { DEFAULT_ALLOWED_ORIGINS } from './origins.js';
import type { SettingKey } from './schema.js';
import { ConfigError, type ConfigNotice } from './types.js';

export interface Merged {
  values: Map<SettingKey, unknown>;
  /** Source of each value by dotted key; 'default' for the built-in default. */
  sources: Record<string, string>;
  /** Index of the layer each value came from (higher wins); -1 for the built-in default. */
  layerOf: Map<SettingKey, number>;
}

export const DEFAULT_SOURCE = 'default';

/** Falls back to localhost-only origins when none are configured, and reports the effective list. */
export function settleOrigins(m: Merged, notices: ConfigNotice[]): void {
  const key = 'server.allowed_origins';
  const configured = m.values.get(key) as string[];
  if (m.sources[key] === DEFAULT_SOURCE || configured.length === 0) {
    m.values.set(key, [...DEFAULT_ALLOWED_ORIGINS]);
    notices.push({
      level: 'warn',
      msg: `${key} is not set; falling back to the default (localhost only): ${DEFAULT_ALLOWED_ORIGINS.join(', ')}`,
      key,
      source: m.sources[key],
    });
    m.sources[key] = DEFAULT_SOURCE;
  }
  notices.push({
    level: 'info',
    msg: `CORS allowed origins: ${(m.values.get(key) as string[]).join(', ')}`,
    key,
    source: m.sources[key],
  });
}

// A burst of 0 would refuse every request: a misconfiguration, repaired with a usable value.
const BURST_REPLACEMENTS: Array<[SettingKey, number]> = [
  ['server.middleware.rate_limit.burst_size', 120],
  ['auth.rate_limit.burst_size', 10],
];

export function repairBursts(m: Merged, notices: ConfigNotice[]): void {
  for (const [key, usable] of BURST_REPLACEMENTS) {
    if (m.values.get(key) !== 0) continue;
    const source = m.sources[key];
    notices.push({
      level: 'error',
      msg: `${key} = 0 (from ${source}) would refuse every request; using ${usable} instead`,
      key,
      source,
    });
    m.values.set(key, usable);
    m.sources[key] = `${DEFAULT_SOURCE} (replacing 0 from ${source})`;
  }
}

/**
 * db.socket wins over host/port. A socket from a lower layer (typically zm.conf) must not
 * silently defeat a host or port the operator set higher up, so it is dropped then.
 */
export function dropShadowedSocket(m: Merged, notices: ConfigNotice[]): void {
  if (m.values.get('db.socket') === null) return;
  const socketLayer = m.layerOf.get('db.socket') ?? -1;
  const hostKey = (['db.host', 'db.port'] as const).find((k) => (m.layerOf.get(k) ?? -1) > socketLayer);
  if (!hostKey) return;
  notices.push({
    level: 'info',
    msg: `db.socket from ${m.sources['db.socket']} not used because ${hostKey} is set in ${m.sources[hostKey]}`,
    key: 'db.socket',
    source: m.sources['db.socket'],
  });
  m.values.set('db.socket', null);
  m.sources['db.socket'] = `${DEFAULT_SOURCE} (overridden by ${hostKey})`;
}

/** Rules between settings; the first broken one stops start-up. */
export function checkCombinations(m: Merged): void {
  const v = <T>(key: SettingKey) => m.values.get(key) as T;
  const fail = (key: SettingKey, allowed: string) => {
    throw new ConfigError(key, m.sources[key], allowed);
  };

  if (v<boolean>('server.tls.enabled') && v<boolean>('server.acme.enabled')) {
    fail(
      'server.tls.enabled',
      `server.tls.enabled and server.acme.enabled are mutually exclusive; enable at most one (server.acme.enabled is set in ${m.sources['server.acme.enabled']})`,
    );
  }
  if (v<boolean>('server.tls.enabled')) {
    if (v<string>('server.tls.cert_path') === '')
      fail('server.tls.cert_path', 'must be set when server.tls.enabled is true');
    if (v<string>('server.tls.key_path') === '')
      fail('server.tls.key_path', 'must be set when server.tls.enabled is true');
  }
  if (v<boolean>('server.acme.enabled')) {
    if (v<string[]>('server.acme.domains').length === 0) {
      fail('server.acme.domains', 'must list at least one domain when server.acme.enabled is true');
    }
    const port = v<number>('server.port');
    if (v<string>('server.acme.challenge') === 'http-01' && v<number>('server.acme.http_port') === port) {
      fail('server.acme.http_port', `must differ from server.port (${port}) for the http-01 challenge`);
    }
  }
  if (v<number>('db.pool_min') > v<number>('db.pool_max')) {
    fail('db.pool_min', `must not exceed db.pool_max (${v<number>('db.pool_max')})`);
  }
  if (v<number>('streaming.hls.partial_segment_ms') > v<number>('streaming.hls.segment_duration_seconds') * 1000) {
    fail(
      'streaming.hls.partial_segment_ms',
      `must not exceed streaming.hls.segment_duration_seconds (${v<number>('streaming.hls.segment_duration_seconds')} s)`,
    );
  }
  if (v<boolean>('streaming.webrtc.turn.enabled') && v<string>('streaming.webrtc.turn.server') === '') {
    fail('streaming.webrtc.turn.server', 'must be set when streaming.webrtc.turn.enabled is true');
  }
}
