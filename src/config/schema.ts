// The settings table: one entry per leaf of AppConfig (minus `profile`) with its value type
// and built-in default. It drives environment coercion, unknown-key detection and validation.
// The mapped type below makes the compiler insist on an entry for every AppConfig leaf.
import { originList, DEFAULT_ALLOWED_ORIGINS } from './origins.js';
import type { AppConfig } from './types.js';
import { absolutePath, bool, int, list, nonEmpty, oneOf, optionalAbsolutePath, str, type ValueType } from './values.js';
import { durationSetting, floorSetting, overridesSetting, sizeSetting } from './units.js';

/** Everything that files and the environment can set (`profile` comes from APP_PROFILE). */
export type Settings = Omit<AppConfig, 'profile'>;

type Leaf = readonly unknown[] | string | number | boolean | null;

/** Dotted paths of the leaves of T, e.g. 'server.port'; arrays count as leaves. */
type LeafPaths<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends Leaf ? `${Prefix}${K}` : LeafPaths<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

/** The type at a dotted path of T. */
type ValueAt<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? ValueAt<T[Head], Rest>
    : never
  : P extends keyof T
    ? T[P]
    : never;

export type SettingKey = LeafPaths<Settings>;

export interface Setting<T> {
  type: ValueType<T>;
  /** Used when no layer sets the key. base.toml repeats it (a test keeps the two equal). */
  default: T;
  /** Left commented out in base.toml, so values from zm.conf (or a code fallback) show through. */
  commentedInBase?: true;
  /** Never echoed in error messages. */
  secret?: true;
}

const port = int(0, 65535);
const positive = int(1, Number.MAX_SAFE_INTEGER, 'must be a positive integer');
const seconds = (min: number, max: number) => int(min, max, `must be an integer number of seconds ${min}..${max}`);

const explorerPath = str(
  (s) => /^(\/[A-Za-z0-9._~-]+)+$/.test(s) && !/^\/api(-docs)?(\/|$)/i.test(s),
  'must be a path starting with "/" (segments of letters, digits, . _ ~ -, no trailing "/"), not /api, /api-docs or under them',
);
const hostOrAddress = str((s) => /^\S+$/.test(s), 'must be an IP address or host name');
const dnsName = str(
  (s) => /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(s),
  'must be a DNS name such as cams.example.com',
);
const stunUrl = str(
  (s) => /^stuns?:(\[[0-9a-fA-F:.]+\]|[^\s:/?[\]]+)(:\d{1,5})?$/.test(s),
  'must be a STUN URL such as stun:stun.example.com:3478',
);
const email = str((s) => /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(s), 'must be an email address such as admin@example.com');

// Limiter burst 0 passes validation on purpose: checks.ts replaces it and reports an error.
const period = seconds(1, 3600);
const burst = int(0, 1_000_000);

export const SETTINGS: { [P in SettingKey]: Setting<ValueAt<Settings, P>> } = {
  'server.addr': { type: hostOrAddress, default: '0.0.0.0' },
  'server.port': { type: port, default: 8080 },
  'server.allowed_origins': { type: originList, default: [...DEFAULT_ALLOWED_ORIGINS], commentedInBase: true },
  'server.explorer_path': { type: explorerPath, default: '/swagger-ui' },
  'server.shutdown_grace_secs': { type: seconds(0, 3600), default: 10 },
  'server.middleware.body_limit_bytes': { type: positive, default: 2_097_152 },
  'server.middleware.trust_proxy_headers': { type: bool, default: false },
  'server.middleware.compression': { type: bool, default: true },
  'server.middleware.rate_limit.enabled': { type: bool, default: false },
  'server.middleware.rate_limit.rate_limit_period_secs': { type: period, default: 1 },
  'server.middleware.rate_limit.burst_size': { type: burst, default: 120 },
  'server.tls.enabled': { type: bool, default: false },
  'server.tls.cert_path': { type: str(), default: '' },
  'server.tls.key_path': { type: str(), default: '' },
  'server.acme.enabled': { type: bool, default: false },
  'server.acme.domains': { type: list(dnsName), default: [] },
  'server.acme.contact_emails': { type: list(email), default: [] },
  'server.acme.cache_dir': { type: nonEmpty, default: '/var/lib/zmgate/acme' },
  'server.acme.production': { type: bool, default: false },
  'server.acme.challenge': { type: oneOf(['tls-alpn-01', 'http-01']), default: 'tls-alpn-01' },
  'server.acme.http_port': { type: int(1, 65535), default: 80 },
  'server.acme.directory_url': { type: str(), default: '' },
  'auth.state_dir': { type: absolutePath, default: '/var/lib/zmgate' },
  'auth.access_token_ttl_secs': { type: seconds(60, 86400), default: 600 },
  'auth.refresh_token_ttl_secs': { type: seconds(60, 2_592_000), default: 3600 },
  'auth.rate_limit.enabled': { type: bool, default: true },
  'auth.rate_limit.rate_limit_period_secs': { type: period, default: 2 },
  'auth.rate_limit.burst_size': { type: burst, default: 10 },
  // Connection defaults are ZoneMinder's own; normally zm.conf provides them.
  'db.host': { type: nonEmpty, default: 'localhost', commentedInBase: true },
  'db.port': { type: int(1, 65535), default: 3306, commentedInBase: true },
  'db.socket': { type: optionalAbsolutePath, default: null, commentedInBase: true },
  'db.username': { type: nonEmpty, default: 'zmuser', commentedInBase: true },
  'db.password': { type: str(), default: 'zmpass', commentedInBase: true, secret: true },
  'db.database_name': { type: nonEmpty, default: 'zm', commentedInBase: true },
  'db.pool_min': { type: int(0, 1000), default: 1 },
  'db.pool_max': { type: int(1, 1000), default: 10 },
  'db.connect_timeout_secs': { type: seconds(1, 3600), default: 5 },
  'db.acquire_timeout_secs': { type: seconds(1, 3600), default: 5 },
  'db.query_timeout_secs': { type: seconds(1, 3600), default: 30 },
  'db.idle_timeout_secs': { type: seconds(0, 86400), default: 600 },
  'db.migrate_on_start': { type: bool, default: true },
  'zoneminder.config_path': { type: absolutePath, default: '/etc/zm/zm.conf' },
  'zoneminder.path_socks': { type: absolutePath, default: '/run/zm', commentedInBase: true },
  'zoneminder.path_map': { type: absolutePath, default: '/dev/shm', commentedInBase: true },
  'zoneminder.dir_events': { type: absolutePath, default: '/var/cache/zoneminder/events', commentedInBase: true },
  'log.level': { type: oneOf(['trace', 'debug', 'info', 'warn', 'error', 'fatal']), default: 'info' },
  'daemon.enabled': { type: bool, default: false },
  'daemon.bin_dir': { type: absolutePath, default: '/usr/bin', commentedInBase: true },
  'daemon.server_host': { type: str(), default: '', commentedInBase: true },
  'daemon.stop_grace_secs': { type: seconds(1, 300), default: 10 },
  'daemon.reconcile_interval_secs': { type: seconds(1, 300), default: 3 },
  'daemon.start_stagger_ms': {
    type: int(0, 10_000, 'must be an integer number of milliseconds 0..10000'),
    default: 200,
  },
  'daemon.journal_socket': { type: absolutePath, default: '/run/systemd/journal/socket' },
  'daemon.shim_enabled': { type: bool, default: true },
  'web.enabled': { type: bool, default: false },
  'web.root': { type: nonEmpty, default: '/usr/share/zmgate/web' },
  'web.content_security_policy': {
    type: str(),
    default:
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
      "media-src 'self' blob:; connect-src 'self' ws: wss:; font-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'self'",
  },
  'web.demo_page': { type: bool, default: false },
  'streaming.enabled': { type: bool, default: true },
  'streaming.hls.segment_duration_seconds': {
    type: int(1, 30, 'must be an integer number of seconds 1..30'),
    default: 1,
  },
  'streaming.hls.partial_segment_ms': {
    type: int(50, 5000, 'must be an integer number of milliseconds 50..5000'),
    default: 200,
  },
  // At least 3: a live playlist must span three target durations (RFC 8216bis §6.2.2).
  'streaming.hls.playlist_size': { type: int(3, 100, 'must be an integer 3..100'), default: 10 },
  'streaming.hls.ll_hls_enabled': { type: bool, default: true },
  'streaming.hls.idle_timeout_seconds': { type: seconds(0, 86400), default: 90 },
  'streaming.webrtc.stun_servers': { type: list(stunUrl), default: [] },
  'streaming.webrtc.turn.enabled': { type: bool, default: false },
  'streaming.webrtc.turn.server': { type: str(), default: '' },
  'streaming.webrtc.turn.username': { type: str(), default: '' },
  'streaming.webrtc.turn.password': { type: str(), default: '', secret: true },
  'streaming.mjpeg.max_fps': { type: int(1, 30, 'must be an integer number of frames per second 1..30'), default: 5 },
  'streaming.mjpeg.max_queue_bytes': {
    type: int(65536, 256 * 2 ** 20, 'must be a number of bytes 65536..268435456'),
    default: 2 ** 20,
  },
  'streaming.mjpeg.stall_timeout_seconds': { type: seconds(1, 300), default: 10 },
  'playback.segment_cache_bytes': {
    type: int(0, 16 * 2 ** 30, 'must be a number of bytes 0..17179869184'),
    default: 64 * 2 ** 20,
  },
  'recordings.max_range_hours': { type: int(1, 8784, 'must be a number of hours 1..8784'), default: 168 },
  'retention.enabled': { type: bool, default: false },
  'retention.interval_seconds': { type: seconds(10, 86400), default: 300 },
  'retention.free_space_floor': { type: floorSetting, default: '5%' },
  'retention.max_age': { type: durationSetting, default: '' },
  'retention.quota': { type: sizeSetting, default: '' },
  'retention.overrides': { type: overridesSetting, default: [] },
  'cluster.server_id': { type: int(0, 4294967295), default: 0, commentedInBase: true },
  'cluster.server_name': { type: str(), default: '', commentedInBase: true },
  'cluster.advertise_url': {
    type: str(
      (s) => s === '' || /^https?:\/\/[^\s/]+(\/\S*)?$/.test(s),
      'must be empty or an http(s) URL such as http://10.0.0.2:8080/api/v3',
    ),
    default: '',
  },
  'cluster.proxy_timeout_secs': { type: seconds(1, 300), default: 5 },
  'cluster.refresh_secs': { type: seconds(1, 3600), default: 10 },
  'cluster.redis_url': {
    type: str((s) => s === '' || /^rediss?:\/\/\S+$/.test(s), 'must be empty or a redis:// or rediss:// URL'),
    default: '',
    secret: true,
  },
  'push.enabled': { type: bool, default: true },
  'push.alarm_poll_ms': { type: int(20, 5000, 'must be an integer number of milliseconds 20..5000'), default: 100 },
  'push.event_poll_ms': {
    type: int(100, 10_000, 'must be an integer number of milliseconds 100..10000'),
    default: 500,
  },
  'push.status_poll_secs': { type: seconds(1, 3600), default: 5 },
  'push.recheck_secs': { type: seconds(1, 600), default: 2 },
  'push.max_clients': { type: int(1, 100_000), default: 4096 },
  'push.max_queued_messages': { type: int(8, 100_000), default: 512 },
  'push.replay_max': { type: int(1, 10_000), default: 200 },
  'push.capture_fps_threshold': { type: int(0, 1000), default: 1 },
  'metrics.enabled': { type: bool, default: false },
  'metrics.port': { type: port, default: 0 },
  'metrics.host': { type: hostOrAddress, default: '127.0.0.1' },
  'metrics.path': { type: str((s) => /^\/[\w./-]*$/.test(s), 'must be a path such as /metrics'), default: '/metrics' },
  'metrics.bearer_token': { type: str(), default: '', secret: true },
  'maintenance.stats.enabled': { type: bool, default: false },
  'maintenance.stats.interval_seconds': { type: seconds(1, 86400), default: 60 },
  'maintenance.audit.enabled': { type: bool, default: false },
  'maintenance.audit.dry_run': { type: bool, default: false },
  'maintenance.audit.min_age_seconds': { type: seconds(0, 31_536_000), default: 3600 },
  'maintenance.audit.filesystem.enabled': { type: bool, default: false },
  'maintenance.audit.filesystem.quarantine_retention_days': { type: int(1, 3650), default: 7 },
  'maintenance.audit.filesystem.confirmations_required': { type: int(1, 100), default: 2 },
  'maintenance.audit.filesystem.remove_rows_without_media': { type: bool, default: false },
  'maintenance.telemetry.enabled': { type: bool, default: false },
  'maintenance.telemetry.interval_seconds': { type: seconds(3600, 31_536_000), default: 1_209_600 },
};

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** A setting by key, loosely typed for the generic loader code. */
export function settingOf(key: SettingKey): Setting<unknown> {
  return SETTINGS[key] as Setting<unknown>;
}

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

/** Old names still accepted; the new name wins when a layer has both. */
export const ALIASES: Readonly<Record<string, SettingKey>> = {
  'server.middleware.rate_limit.rate_limit_per_second': 'server.middleware.rate_limit.rate_limit_period_secs',
  'auth.rate_limit.rate_limit_per_second': 'auth.rate_limit.rate_limit_period_secs',
};

// Blocks the service no longer has (RTSP proxy, go2rtc). Old files keep them; they are
// ignored without a word so upgrades do not start with warnings.
const STALE = ['streaming.rtsp_proxy', 'streaming.go2rtc', 'streaming.go2rtc_url'];

export function isStale(key: string): boolean {
  return STALE.some((s) => key === s || key.startsWith(`${s}.`));
}

/** Dotted paths that are tables of settings ('server', 'server.middleware', ...). */
const TABLES = new Set(
  SETTING_KEYS.flatMap((key) => {
    const parts = key.split('.');
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('.'));
  }),
);

export function isTable(key: string): boolean {
  return TABLES.has(key);
}
