// One monitor's live HLS session: an LL-HLS packager fed natively from the shared reader, its
// status (docs/contract/clients.md life cycle) and its idle clock. The session holds the reader open
// with an 'hls' retain until it is stopped.
import { LlHlsPackager, type CodecInfo, type LlHlsOptions } from '../native/index.js';
import type { MonitorFeed } from './monitor-feed.js';

export type SessionStatus = 'starting' | 'active' | 'error';

export interface HlsSessionStats {
  monitor_id: number;
  status: SessionStatus;
  packets_processed: number;
  errors: number;
  uptime_seconds: number;
}

export class HlsSession {
  readonly packager: LlHlsPackager;
  readonly startedAt = Date.now();
  /**
   * Distinguishes this session's URIs from an earlier session's (`?s=` on every URI): segment
   * names restart at 0 with each session, and segments are cacheable for a year.
   */
  readonly epoch = `${this.startedAt.toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  lastTouch = Date.now();
  #feed: MonitorFeed;
  #release: () => void;
  #mediaBase: number;
  #errorsBase: number;
  #lastMedia: number;
  #lastMediaAt: number;
  #stopped = false;

  constructor(
    feed: MonitorFeed,
    options: LlHlsOptions,
    /** No media for this long (or never any) ⇒ status `error`. */
    private readonly noPacketMs: number,
  ) {
    this.#feed = feed;
    this.packager = new LlHlsPackager(options);
    this.#release = feed.retain('hls');
    this.packager.attach(feed.client);
    this.#mediaBase = this.#lastMedia = feed.client.stats().media;
    this.#errorsBase = feed.errors;
    this.#lastMediaAt = this.startedAt;
  }

  get monitorId(): number {
    return this.#feed.monitorId;
  }

  /** The stream's codecs as its HELLOs announced them (no media needed), for a master before the first init. */
  helloCodecs(): { video?: CodecInfo; audio?: CodecInfo } {
    return this.#feed.client.closed ? {} : this.#feed.client.codecs();
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Any request for this session's playlists or media. */
  touch(now = Date.now()): void {
    this.lastTouch = now;
  }

  /** Samples the reader's media counter; the hub calls it every second. */
  observe(now = Date.now()): void {
    if (this.#feed.client.closed) return;
    const media = this.#feed.client.stats().media;
    if (media !== this.#lastMedia) {
      this.#lastMedia = media;
      this.#lastMediaAt = now;
    }
  }

  status(now = Date.now()): SessionStatus {
    this.observe(now);
    if (this.#feed.client.closed) return 'error'; // the reader died
    if (now - this.#lastMediaAt > this.noPacketMs) return 'error';
    return this.#lastMedia > this.#mediaBase ? 'active' : 'starting';
  }

  stats(now = Date.now()): HlsSessionStats {
    return {
      monitor_id: this.monitorId,
      status: this.status(now),
      packets_processed: this.#lastMedia - this.#mediaBase,
      errors: this.#feed.errors - this.#errorsBase,
      uptime_seconds: Math.round((now - this.startedAt) / 100) / 10,
    };
  }

  /** Ends the playlist (waiting requests are answered) and lets go of the reader. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.packager.end();
    this.#release();
  }
}
