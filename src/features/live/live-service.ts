// The live session routes (docs/contract/clients.md) over the live hub: start/stop/stats of a monitor's
// HLS session, the session list and the source list. Every route needs Stream View (the
// controller's policy); a monitor hidden by the row ACL, or missing, is 404 MONITOR_NOT_FOUND.
import type { ClusterServerStatus } from '../../infra/cluster/cluster-lists.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AuthUser } from '../../auth/auth-service.js';
import { canSee, monitorNotFound, requireVisibleMonitor, type MonitorAcl } from '../../auth/monitor-acl.js';
import type { AppConfig } from '../../config/types.js';
import type { PrismaClient } from '../../db/prisma.js';
import { NotFoundError, ServiceUnavailableError } from '../../errors.js';
import type { LiveFeed, WebRtcStartup } from '../../live-hub/feed.js';
import type { HlsSession, SessionStatus } from '../../live-hub/hls-session.js';
import { streamSocketNotAvailable, type LiveHub } from '../../live-hub/hub.js';
import type { SourceCodec } from '../../live-hub/monitor-feed.js';
import type { Services } from '../../registry.js';
import { LiveMjpegStreams } from './live-mjpeg.js';

export interface StartLiveRequest {
  /** Start an HLS session (default true). */
  enable_hls?: boolean;
  /** Only shapes the answer (`webrtc_signaling`); the WebSocket needs no /start (default false). */
  enable_webrtc?: boolean;
}

export interface StartLiveResponse {
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /** Always "started". */
  status: string;
  /** `/api/v3/live/{id}/hls/live.m3u8` when HLS was requested. */
  hls_playlist?: string | null;
  /** `/api/v3/live/{id}/webrtc/ws` when WebRTC was requested. */
  webrtc_signaling?: string | null;
}

export interface LiveProtocolStatus {
  hls: boolean;
  webrtc: boolean;
}

export interface WebRtcStartupView {
  warm_start: boolean;
  /**
   * @isLong
   * @minimum 0
   */
  get_source_ms: number | null;
  /**
   * @isLong
   * @minimum 0
   */
  offer_ms: number | null;
  /**
   * @isLong
   * @minimum 0
   */
  ice_connected_ms: number | null;
  /**
   * @isLong
   * @minimum 0
   */
  connected_ms: number | null;
  /**
   * @isLong
   * @minimum 0
   */
  first_rtp_ms: number | null;
}

export interface LiveStatsResponse {
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /** starting (no media yet), active, or error (no media for 15 s, or the reader died). */
  status: SessionStatus;
  /**
   * Media messages read from the stream socket since the session started.
   * @isLong
   * @minimum 0
   */
  packets_processed: number;
  /**
   * Abnormal stream-socket disconnects since the session started.
   * @isLong
   * @minimum 0
   */
  errors: number;
  uptime_seconds: number;
  protocols: LiveProtocolStatus;
  /** The last WebRTC session's start-up timings; absent when WebRTC was never used. */
  webrtc_startup?: WebRtcStartupView;
}

export interface LiveSource {
  /**
   * @isInt
   * @minimum 0
   */
  monitor_id: number;
  /** MJPEG: no stream socket; the monitor's shared-memory images are offered as MJPEG. */
  codec: SourceCodec | 'MJPEG';
  /** A reader is connected to the stream socket. */
  active: boolean;
  /**
   * @isInt
   * @minimum 0
   */
  video_subscribers: number;
  /**
   * @isInt
   * @minimum 0
   */
  audio_subscribers: number;
  has_audio: boolean;
  /**
   * Audio packets read while an audio viewer (WebRTC) was attached.
   * @isLong
   * @minimum 0
   */
  audio_packets: number;
  /** LL-HLS master playlist (stream-socket sources). */
  hls?: string;
  /** WebRTC signalling WebSocket (stream-socket sources). */
  webrtc?: string;
  /** multipart MJPEG stream (shared-memory sources). */
  mjpeg?: string;
  /**
   * `scope=cluster` only: Servers.Id of the host this source is on (its URLs work through any host).
   * @isInt
   * @minimum 0
   */
  server_id?: number;
  /** `scope=cluster` only: that host's Servers.Name. */
  server_name?: string;
}

export interface LiveSourcesResponse {
  /**
   * @isInt
   * @minimum 0
   */
  active_sources: number;
  sources: LiveSource[];
  /** `scope=cluster` only: every host asked, and whether its sources are in the list. */
  servers?: ClusterServerStatus[];
}

const base = (id: number) => `/api/v3/live/${id}`;

export class LiveService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): LiveService {
    return new LiveService(s);
  }

  private readonly mjpeg: LiveMjpegStreams;
  private readonly hub: LiveHub;
  private readonly acl: MonitorAcl;
  private readonly prisma: PrismaClient;
  private readonly config: AppConfig;

  constructor(services: Services) {
    this.mjpeg = services.get(LiveMjpegStreams);
    this.hub = services.live;
    this.acl = services.acl;
    this.prisma = services.prisma;
    this.config = services.config;
  }

  /** 503 when `streaming.enabled` is off. */
  requireEnabled(): void {
    if (!this.config.streaming.enabled) {
      throw new ServiceUnavailableError('Live streaming is disabled', [['setting', 'streaming.enabled']]);
    }
  }

  async start(user: AuthUser, monitorId: number, body: StartLiveRequest = {}): Promise<StartLiveResponse> {
    this.requireEnabled();
    await this.requireMonitor(user, monitorId);
    const hls = body.enable_hls ?? true;
    if (hls)
      this.hub.startHls(monitorId); // 409 when a session exists, 404 without a socket
    else if (!this.hub.socketExists(monitorId)) throw streamSocketNotAvailable(monitorId);
    return {
      monitor_id: monitorId,
      status: 'started',
      hls_playlist: hls ? `${base(monitorId)}/hls/live.m3u8` : null,
      webrtc_signaling: body.enable_webrtc ? `${base(monitorId)}/webrtc/ws` : null,
    };
  }

  /** Idempotent: stopping nothing is fine (the caller answers 204 either way). */
  async stop(user: AuthUser, monitorId: number): Promise<void> {
    this.requireEnabled();
    if (!this.hub.hlsSession(monitorId)) await this.requireMonitor(user, monitorId);
    else requireVisibleMonitor(await this.acl.scope(user), monitorId);
    this.hub.stopHls(monitorId);
  }

  async stats(user: AuthUser, monitorId: number): Promise<LiveStatsResponse> {
    this.requireEnabled();
    const session = await this.visibleSession(user, monitorId);
    const startup = this.hub.webRtcStartup(monitorId);
    return {
      ...session.stats(),
      protocols: { hls: true, webrtc: (this.hub.feed(monitorId)?.viewers.webrtc ?? 0) > 0 },
      ...(startup ? { webrtc_startup: toStartupView(startup) } : {}),
    };
  }

  async sessions(user: AuthUser): Promise<number[]> {
    this.requireEnabled();
    const scope = await this.acl.scope(user);
    return this.hub.sessionIds().filter((id) => canSee(scope, id));
  }

  async sources(user: AuthUser): Promise<LiveSourcesResponse> {
    this.requireEnabled();
    const scope = await this.acl.scope(user);
    const rows = await this.prisma.monitors.findMany({ select: { Id: true }, orderBy: { Id: 'asc' } });
    const open = new Map(this.hub.sources().map((s) => [s.monitor_id, s]));
    const mjpegViewers = this.mjpeg.viewers();
    const sources: LiveSource[] = [];
    for (const { Id } of rows) {
      const id = Number(Id);
      if (!canSee(scope, id)) continue;
      const feed = open.get(id);
      if (feed || this.hub.socketExists(id)) {
        const summary = feed ?? {
          monitor_id: id,
          codec: 'Unknown' as const,
          active: false,
          video_subscribers: 0,
          audio_subscribers: 0,
          has_audio: false,
          audio_packets: 0,
        };
        sources.push({ ...summary, hls: `${base(id)}/hls/master.m3u8`, webrtc: `${base(id)}/webrtc/ws` });
      } else if (existsSync(join(this.config.zoneminder.path_map, `zm.mmap.${id}`))) {
        // Stock ZoneMinder (no stream socket): the shared-memory images as MJPEG.
        const viewers = mjpegViewers.get(id) ?? 0;
        sources.push({
          monitor_id: id,
          codec: 'MJPEG',
          active: viewers > 0,
          video_subscribers: viewers,
          audio_subscribers: 0,
          has_audio: false,
          audio_packets: 0,
          mjpeg: `${base(id)}/mjpeg`,
        });
      }
    }
    return { active_sources: sources.filter((s) => s.active).length, sources };
  }

  /**
   * For other live viewers (the WebRTC WebSocket): 503 when disabled, 404 MONITOR_NOT_FOUND when
   * the monitor is hidden, missing, or has no stream socket; else its shared feed (retain it).
   */
  async openFeed(user: AuthUser, monitorId: number): Promise<LiveFeed> {
    this.requireEnabled();
    await this.requireMonitor(user, monitorId);
    return this.hub.open(monitorId);
  }

  /**
   * The monitor's HLS session for a media request: row ACL, then the session. Playlist requests
   * (`autoStart`) start one when there is none, so players given only a URL (ffmpeg, VLC, native
   * HLS) work without POST /start; init and segment requests are 404 without a session.
   */
  async hlsSession(user: AuthUser, monitorId: number, autoStart = false): Promise<HlsSession> {
    this.requireEnabled();
    if (!autoStart) return this.visibleSession(user, monitorId);
    requireVisibleMonitor(await this.acl.scope(user), monitorId);
    const existing = this.hub.hlsSession(monitorId);
    if (existing) return existing;
    await this.requireMonitor(user, monitorId);
    // Another request may have started it meanwhile (the DB check awaited).
    return this.hub.hlsSession(monitorId) ?? this.hub.startHls(monitorId);
  }

  /**
   * The session of a visible monitor, else 404: MONITOR_NOT_FOUND for a hidden or missing monitor
   * (a missing one must not look different from a hidden one), SESSION_NOT_FOUND for no session.
   * A session's monitor existed when it started; only without one is the row looked up.
   */
  private async visibleSession(user: AuthUser, monitorId: number): Promise<HlsSession> {
    requireVisibleMonitor(await this.acl.scope(user), monitorId);
    const session = this.hub.hlsSession(monitorId);
    if (session) return session;
    await this.requireMonitor(user, monitorId);
    return this.requireSession(monitorId);
  }

  private requireSession(monitorId: number): HlsSession {
    const session = this.hub.hlsSession(monitorId);
    if (!session) {
      throw new NotFoundError(
        `No live session for monitor ${monitorId}; POST /api/v3/live/${monitorId}/start first`,
        [['monitor_id', String(monitorId)]],
        'SESSION',
      );
    }
    return session;
  }

  private async requireMonitor(user: AuthUser, monitorId: number): Promise<void> {
    requireVisibleMonitor(await this.acl.scope(user), monitorId);
    if (!(await this.prisma.monitors.findUnique({ where: { Id: monitorId }, select: { Id: true } })))
      throw monitorNotFound(monitorId);
  }
}

function toStartupView(s: WebRtcStartup): WebRtcStartupView {
  return {
    warm_start: s.warm_start,
    get_source_ms: s.get_source_ms,
    offer_ms: s.offer_ms,
    ice_connected_ms: s.ice_connected_ms,
    connected_ms: s.connected_ms,
    first_rtp_ms: s.first_rtp_ms,
  };
}
