// The validated, fully-defaulted configuration the rest of the service reads.
// Loading, layering and validation live in src/config/load.ts.
import type { RetentionOverride } from './units.js';

export interface LimiterConfig {
  enabled: boolean;
  /** Seconds between replenished tokens (alias accepted on input: rate_limit_per_second). */
  rate_limit_period_secs: number;
  burst_size: number;
}

export interface AppConfig {
  /** Which APP_PROFILE was applied, if any. */
  profile: 'dev' | 'test' | 'test-db' | 'prod' | null;
  server: {
    addr: string;
    port: number;
    /** Exact origins or `scheme://host:*`. */
    allowed_origins: string[];
    explorer_path: string;
    shutdown_grace_secs: number;
    middleware: {
      body_limit_bytes: number;
      trust_proxy_headers: boolean;
      compression: boolean;
      rate_limit: LimiterConfig;
    };
    tls: { enabled: boolean; cert_path: string; key_path: string };
    acme: {
      enabled: boolean;
      domains: string[];
      contact_emails: string[];
      cache_dir: string;
      production: boolean;
      challenge: 'tls-alpn-01' | 'http-01';
      http_port: number;
      /** CA directory URL; empty: Let's Encrypt (production or staging). */
      directory_url: string;
    };
  };
  auth: {
    /** Where the per-install JWT signing keys live (created on first start, mode 0600). */
    state_dir: string;
    access_token_ttl_secs: number;
    refresh_token_ttl_secs: number;
    rate_limit: LimiterConfig;
  };
  db: {
    host: string;
    port: number;
    /** Unix socket path; when set, host/port are not used. */
    socket: string | null;
    username: string;
    password: string;
    database_name: string;
    pool_min: number;
    pool_max: number;
    connect_timeout_secs: number;
    acquire_timeout_secs: number;
    idle_timeout_secs: number;
    /** Seconds one statement may take before its connection is dropped and the request answers 503. */
    query_timeout_secs: number;
    /** Apply pending non-destructive migrations at start-up. */
    migrate_on_start: boolean;
  };
  zoneminder: {
    /** zm.conf; its conf.d directory is read from beside it. */
    config_path: string;
    path_socks: string;
    path_map: string;
    dir_events: string;
  };
  log: { level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' };
  daemon: {
    /** Takeover mode: zmgate supervises ZoneMinder's daemons (src/features/daemons/). */
    enabled: boolean;
    /** Where the daemons live (ZM_PATH_BIN). */
    bin_dir: string;
    /** This host's Servers.Name in a multi-server install (as ZM_SERVER_HOST); empty: single server. */
    server_host: string;
    /** TERM, then KILL after this many seconds. */
    stop_grace_secs: number;
    reconcile_interval_secs: number;
    /** Pause between daemon starts when many are due at once. */
    start_stagger_ms: number;
    /** systemd journal's native socket; supervision events go to the service log when it is absent. */
    journal_socket: string;
    /** Bind the zmdc.pl-compatible control socket (ZM_PATH_SOCKS/zmdc.sock). */
    shim_enabled: boolean;
  };
  web: { enabled: boolean; root: string; content_security_policy: string; demo_page: boolean };
  streaming: {
    /** Live video (sessions, HLS, WebRTC); off: the live routes answer 503. */
    enabled: boolean;
    hls: {
      /** A segment is cut at the first keyframe after this many seconds (a longer GOP gives longer segments). */
      segment_duration_seconds: number;
      /** Partial segment cut target, rounded to whole frames; PART-TARGET adds half a frame of headroom. */
      partial_segment_ms: number;
      /** Complete segments listed in live.m3u8. */
      playlist_size: number;
      /** Low-latency tags (parts, preload hints, blocking reload); off: a plain live playlist. */
      ll_hls_enabled: boolean;
      /** An HLS session not requested for this long is stopped (0: never). */
      idle_timeout_seconds: number;
    };
    webrtc: { stun_servers: string[]; turn: { enabled: boolean; server: string; username: string; password: string } };
    /** The MJPEG streams (live from shared memory, and recorded JPEG-only events). */
    mjpeg: {
      /** Frame-rate cap of the live stream. */
      max_fps: number;
      /** Bytes queued for one viewer (not yet taken by its socket) beyond which frames are skipped. */
      max_queue_bytes: number;
      /** A viewer whose queue stays over max_queue_bytes this long is disconnected (logged once). */
      stall_timeout_seconds: number;
    };
  };
  playback: {
    /** Memory for HLS VOD segments of recorded events (LRU), in bytes. */
    segment_cache_bytes: number;
  };
  recordings: {
    /** Longest range of one coverage answer (GET /monitors/{id}/recordings, /recordings). */
    max_range_hours: number;
  };
  retention: {
    enabled: boolean;
    interval_seconds: number;
    /** Defaults for every Storage; "" means no such limit. See src/config/units.ts. */
    free_space_floor: string;
    max_age: string;
    quota: string;
    overrides: RetentionOverride[];
  };
  /** Live event push over socket.io (src/features/push/, docs/push.md). */
  push: {
    enabled: boolean;
    /** How often each monitor's shared memory is read for alarm and capture changes. */
    alarm_poll_ms: number;
    /** How often the Events table is asked for new and closed events (one query for all clients). */
    event_poll_ms: number;
    /** How often Monitors and Monitor_Status are re-read. */
    status_poll_secs: number;
    /** How often every connection's token, permissions and monitor ACL are checked again. */
    recheck_secs: number;
    /** Connections beyond this are refused. */
    max_clients: number;
    /** Messages queued for one client before it is dropped as too slow. */
    max_queued_messages: number;
    /** Events one replay request returns at most. */
    replay_max: number;
    /** monitor_status reports when the capture rate crosses this many frames per second. */
    capture_fps_threshold: number;
  };
  /** Multi-server installs: one zmgate per ZoneMinder server (src/infra/cluster/, docs/operations/multi-server.md). */
  cluster: {
    /** This host's Servers.Id (zm.conf ZM_SERVER_ID); 0: not set. */
    server_id: number;
    /** This host's Servers.Name (zm.conf ZM_SERVER_NAME), used when server_id is 0; empty: not set. */
    server_name: string;
    /** The API base URL peers use to reach this host; empty: built from its Servers row and server.port. */
    advertise_url: string;
    /** Seconds a forwarded request waits for the owning peer's connection and first byte (then 502/504). */
    proxy_timeout_secs: number;
    /** Seconds between re-reads of the Servers rows and the peers' published keys and URLs. */
    refresh_secs: number;
    /** Redis URL for socket.io's Redis adapter (push shared by every host); empty: push stays per host. */
    redis_url: string;
  };
  /** Prometheus metrics (src/metrics.ts, docs/operations/metrics.md). */
  metrics: {
    enabled: boolean;
    /** 0: served on the main listener at `path`; otherwise a separate plain-HTTP listener on host:port. */
    port: number;
    /** The separate listener's address. */
    host: string;
    /** Where the metrics are served. */
    path: string;
    /** When set, a scrape must send `Authorization: Bearer <token>`; empty: no authentication. */
    bearer_token: string;
  };
  maintenance: {
    stats: { enabled: boolean; interval_seconds: number };
    audit: {
      enabled: boolean;
      dry_run: boolean;
      min_age_seconds: number;
      filesystem: {
        enabled: boolean;
        quarantine_retention_days: number;
        confirmations_required: number;
        remove_rows_without_media: boolean;
      };
    };
    telemetry: { enabled: boolean; interval_seconds: number };
  };
}

/** A message that start-up must print as one line and stop on. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    readonly source: string,
    readonly allowed: string,
    readonly value?: unknown,
  ) {
    super(`invalid configuration: ${key} (from ${source}): ${allowed}`);
    this.name = 'ConfigError';
  }
}

/** Warnings and notices gathered while loading, logged once a logger exists. */
export interface ConfigNotice {
  level: 'warn' | 'error' | 'info';
  msg: string;
  key?: string;
  source?: string;
}

export interface LoadedConfig {
  config: AppConfig;
  notices: ConfigNotice[];
  /** Where each leaf value came from, by dotted key (for the start-up summary). */
  sources: Record<string, string>;
}
