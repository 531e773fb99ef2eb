// The seam between the per-monitor stream reader (the live hub) and its viewers (LL-HLS, WebRTC,
// MJPEG, snapshot). One reader per monitor is shared by every viewer: a viewer subscribes to the
// shared StreamClient's events and never closes it; it holds the reader open with retain().
import type { StreamClient } from '../native/index.js';

export type ViewerKind = 'hls' | 'webrtc' | 'mjpeg';

/** WebRTC start-up timings in ms since the WebSocket connected (docs/contract/clients.md `webrtc_startup`). */
export interface WebRtcStartup {
  warm_start: boolean;
  get_source_ms: number | null;
  offer_ms: number | null;
  ice_connected_ms: number | null;
  connected_ms: number | null;
  first_rtp_ms: number | null;
}

/** One monitor's shared reader, as a viewer sees it. */
export interface LiveFeed {
  readonly monitorId: number;
  /**
   * The shared stream client: listen to 'media', 'codec', 'generation', 'connected', 'disconnected';
   * `latestKeyframe()` and `codecs()` give a new viewer its first picture at once. Never close() it.
   */
  readonly client: StreamClient;
  /**
   * Counts a viewer (for /live/sources) and keeps the reader open until the returned function is
   * called; call it exactly once. `audio` says whether this viewer takes the audio track.
   */
  retain(kind: ViewerKind, options?: { audio?: boolean }): () => void;
}

export interface LiveFeeds {
  /**
   * The feed of a monitor, starting its reader on first use. Throws NotFoundError (kind
   * MONITOR_NOT_FOUND, details monitor_id and reason "stream socket not available") when the
   * monitor's stream socket file does not exist. Authorisation is the caller's job.
   */
  open(monitorId: number): LiveFeed;
  /** Records the last WebRTC session's start-up timings for GET /live/{id}/stats. */
  recordWebRtcStartup(monitorId: number, startup: WebRtcStartup): void;
}
