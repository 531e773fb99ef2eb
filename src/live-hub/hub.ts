// The live hub: one shared stream reader per monitor (LiveFeeds, see feed.ts) and the HLS
// sessions on top of them. A reader starts on first use and closes when its last viewer lets go
// (an HLS session counts as a viewer); idle HLS sessions are reaped. A zmc restart does not end
// anything: the reader reconnects and the packager starts a new init after a discontinuity.
import { lstatSync } from 'node:fs';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Logger } from '../log.js';
import { StreamClient, streamSocketPath } from '../native/index.js';
import type { LiveFeeds, WebRtcStartup } from './feed.js';
import { HlsSession } from './hls-session.js';
import { MonitorFeed, type FeedSummary } from './monitor-feed.js';

export interface HlsSettings {
  segment_duration_seconds: number;
  partial_segment_ms: number;
  playlist_size: number;
  ll_hls_enabled: boolean;
  idle_timeout_seconds: number;
}

export interface LiveHubOptions {
  /** ZM_PATH_SOCKS: `stream_<id>.sock` lives here. */
  socketDir: string;
  hls: HlsSettings;
  log: Logger;
  /** Reader reconnect back-off (default READER_RECONNECT; tests shorten it). */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
  /** A session without media for this long is in `error` (default 15 s). */
  noPacketMs?: number;
  /** How often idle sessions are looked for (default 15 s). */
  reapIntervalMs?: number;
  /** A reader opened but never retained is closed after this long (default 30 s). */
  unusedReaderMs?: number;
}

const TICK_MS = 1000;

/**
 * The readers' reconnect back-off: 250 ms, then 500 ms between attempts. A camera back from an
 * outage is read again within half a second (the native default, doubling to 5 s, took ~3 s after
 * 10 s outages), at the cost of two connection attempts a second per camera while it is down (a
 * connect to a missing socket fails in microseconds). docs/zoneminder/stream-socket.md
 */
export const READER_RECONNECT = { initialDelayMs: 250, maxDelayMs: 500 } as const;

export function streamSocketNotAvailable(monitorId: number): NotFoundError {
  return new NotFoundError(
    `Monitor ${monitorId} not found`,
    [
      ['monitor_id', String(monitorId)],
      ['reason', 'stream socket not available'],
    ],
    'MONITOR',
  );
}

export class LiveHub implements LiveFeeds {
  #feeds = new Map<number, MonitorFeed>();
  #sessions = new Map<number, HlsSession>();
  #webrtc = new Map<number, WebRtcStartup>();
  #unusedTimers = new Map<MonitorFeed, NodeJS.Timeout>();
  #timer: NodeJS.Timeout | undefined;
  #lastReap = Date.now();
  #closed = false;
  readonly options: Required<Omit<LiveHubOptions, 'reconnect'>> & Pick<LiveHubOptions, 'reconnect'>;

  constructor(options: LiveHubOptions) {
    this.options = { noPacketMs: 15_000, reapIntervalMs: 15_000, unusedReaderMs: 30_000, ...options };
  }

  /** Whether zmc's stream socket for the monitor exists (a socket file, not just any path). */
  socketExists(monitorId: number): boolean {
    try {
      return lstatSync(streamSocketPath(this.options.socketDir, monitorId)).isSocket();
    } catch {
      return false;
    }
  }

  open(monitorId: number): MonitorFeed {
    if (this.#closed) throw new Error('the live hub is closed');
    const existing = this.#feeds.get(monitorId);
    // An open reader outlives a zmc restart (its socket briefly missing): keep using it.
    if (existing) return existing;
    if (!this.socketExists(monitorId)) throw streamSocketNotAvailable(monitorId);
    const client = new StreamClient({
      socketDir: this.options.socketDir,
      monitorId,
      log: this.options.log,
      reconnect: this.options.reconnect ?? READER_RECONNECT,
    });
    client.unref(); // shutdown closes readers explicitly; an idle reader must not hold the process
    const feed = new MonitorFeed(monitorId, client, (f) => this.#unused(f));
    this.#feeds.set(monitorId, feed);
    this.#armUnused(feed); // the caller is expected to retain() at once
    return feed;
  }

  /** The monitor's reader if one is open (never opens one). */
  feed(monitorId: number): MonitorFeed | undefined {
    return this.#feeds.get(monitorId);
  }

  recordWebRtcStartup(monitorId: number, startup: WebRtcStartup): void {
    this.#webrtc.set(monitorId, { ...startup });
  }

  webRtcStartup(monitorId: number): WebRtcStartup | undefined {
    return this.#webrtc.get(monitorId);
  }

  /** A new HLS session. 409 when one exists (whatever its status), 404 without a stream socket. */
  startHls(monitorId: number): HlsSession {
    if (this.#sessions.has(monitorId)) {
      throw new ConflictError(`A live session for monitor ${monitorId} already exists`, [
        ['monitor_id', String(monitorId)],
      ]);
    }
    const feed = this.open(monitorId);
    const { hls } = this.options;
    const session = new HlsSession(
      feed,
      {
        partTargetMs: hls.partial_segment_ms,
        segmentTargetMs: hls.segment_duration_seconds * 1000,
        windowSegments: hls.playlist_size,
      },
      this.options.noPacketMs,
    );
    this.#sessions.set(monitorId, session);
    this.#startTimer();
    return session;
  }

  hlsSession(monitorId: number): HlsSession | undefined {
    return this.#sessions.get(monitorId);
  }

  /** Stops the monitor's HLS session; false when there was none. */
  stopHls(monitorId: number): boolean {
    const session = this.#sessions.get(monitorId);
    if (!session) return false;
    this.#sessions.delete(monitorId);
    session.stop();
    if (this.#sessions.size === 0) this.#stopTimer();
    return true;
  }

  /** Monitor ids with an HLS session, ascending. */
  sessionIds(): number[] {
    return [...this.#sessions.keys()].sort((a, b) => a - b);
  }

  /** The open readers, ascending by monitor id. */
  sources(): FeedSummary[] {
    return [...this.#feeds.values()].map((f) => f.summary()).sort((a, b) => a.monitor_id - b.monitor_id);
  }

  /** Stops every session and closes every reader (viewers see their reader close). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTimer();
    for (const id of [...this.#sessions.keys()]) this.stopHls(id);
    for (const t of this.#unusedTimers.values()) clearTimeout(t);
    this.#unusedTimers.clear();
    const feeds = [...this.#feeds.values()];
    this.#feeds.clear();
    await Promise.all(feeds.map((f) => f.client.close()));
  }

  #unused(feed: MonitorFeed): void {
    if (this.#feeds.get(feed.monitorId) !== feed) return; // already replaced or the hub closed
    this.#feeds.delete(feed.monitorId);
    this.#disarmUnused(feed);
    feed.client
      .close()
      .catch((err: Error) =>
        this.options.log.warn(
          { monitor_id: feed.monitorId, err: { message: err.message } },
          'stream reader close failed',
        ),
      );
  }

  #armUnused(feed: MonitorFeed): void {
    const timer = setTimeout(() => {
      this.#unusedTimers.delete(feed);
      if (feed.count === 0) this.#unused(feed);
    }, this.options.unusedReaderMs);
    timer.unref();
    this.#unusedTimers.set(feed, timer);
  }

  #disarmUnused(feed: MonitorFeed): void {
    const t = this.#unusedTimers.get(feed);
    if (t) clearTimeout(t);
    this.#unusedTimers.delete(feed);
  }

  #startTimer(): void {
    if (this.#timer) return;
    this.#lastReap = Date.now();
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  // Every second: sample each session's media counter (for its status); every reap interval:
  // stop sessions nobody requested for idle_timeout_seconds.
  #tick(): void {
    const now = Date.now();
    for (const s of this.#sessions.values()) s.observe(now);
    const idleMs = this.options.hls.idle_timeout_seconds * 1000;
    if (idleMs === 0 || now - this.#lastReap < this.options.reapIntervalMs) return;
    this.#lastReap = now;
    for (const s of [...this.#sessions.values()]) {
      if (now - s.lastTouch >= idleMs) {
        this.options.log.info(
          { monitor_id: s.monitorId, idle_seconds: Math.round((now - s.lastTouch) / 1000) },
          'idle live HLS session stopped',
        );
        this.stopHls(s.monitorId);
      }
    }
  }
}
