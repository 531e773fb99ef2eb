// One monitor's shared stream reader, counted by its viewers. The hub creates it on first use
// and closes it when the last viewer lets go (see hub.ts); viewers only ever retain/release.
import type { CodecInfo, MediaRecord, StreamClient } from '../native/index.js';
import type { LiveFeed, ViewerKind } from './feed.js';

export type SourceCodec = 'H264' | 'H265' | 'Unknown';

/** One row of GET /live/sources (docs/contract/clients.md), before the URL fields are added. */
export interface FeedSummary {
  monitor_id: number;
  codec: SourceCodec;
  active: boolean;
  video_subscribers: number;
  audio_subscribers: number;
  has_audio: boolean;
  audio_packets: number;
}

export function sourceCodec(video: CodecInfo | undefined): SourceCodec {
  if (video?.codec === 'h264') return 'H264';
  if (video?.codec === 'h265') return 'H265';
  return 'Unknown';
}

export class MonitorFeed implements LiveFeed {
  readonly viewers: Record<ViewerKind, number> = { hls: 0, webrtc: 0, mjpeg: 0 };
  #audioViewers = 0;
  #audioPackets = 0;
  #connected = false;
  /** Reader failures (abnormal disconnects) since the feed opened. */
  errors = 0;
  #countAudio = (r: MediaRecord) => {
    if (r.stream === 'audio') this.#audioPackets++;
  };

  constructor(
    readonly monitorId: number,
    readonly client: StreamClient,
    /** Called when the count drops to zero. */
    private readonly onUnused: (feed: MonitorFeed) => void,
  ) {
    client.on('connected', () => (this.#connected = true));
    client.on('disconnected', (d) => {
      this.#connected = false;
      if (d.error) this.errors++;
    });
  }

  get count(): number {
    return this.viewers.hls + this.viewers.webrtc + this.viewers.mjpeg;
  }

  get connected(): boolean {
    return this.#connected && !this.client.closed;
  }

  retain(kind: ViewerKind, options: { audio?: boolean } = {}): () => void {
    if (!(kind in this.viewers)) throw new TypeError(`unknown viewer kind ${String(kind)}`);
    this.viewers[kind]++;
    const audio = options.audio === true;
    // Audio packets are counted in JS only while an audio viewer (WebRTC) has media crossing into
    // JS anyway: a listener of our own would wake JS for every access unit of an HLS-only feed.
    if (audio && this.#audioViewers++ === 0) this.client.on('media', this.#countAudio);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.viewers[kind]--;
      if (audio && --this.#audioViewers === 0) this.client.off('media', this.#countAudio);
      if (this.count === 0) this.onUnused(this);
    };
  }

  summary(): FeedSummary {
    const codecs = this.client.closed ? {} : this.client.codecs();
    return {
      monitor_id: this.monitorId,
      codec: sourceCodec(codecs.video),
      active: this.connected,
      video_subscribers: this.count,
      audio_subscribers: this.#audioViewers,
      has_audio: codecs.audio !== undefined,
      audio_packets: this.#audioPackets,
    };
  }
}
