// Feeds one viewer's tracks from the monitor's shared reader. The reader's 'media' listener only
// appends to this viewer's bounded queue; sending happens later on the event loop, per viewer. A
// viewer that cannot keep up (queue over its bound, or a track that refuses data) loses its own
// frames and resumes at the next keyframe: it never holds up the reader or another viewer.
import type { MediaRecord, StreamClient } from '../../../native/index.js';
import { MediaTimeline, rtpTimestamp } from './media-timeline.js';

/** One sendonly track behind its RTP packetizer. */
export interface RtpOutput {
  readonly clockRate: number;
  /** The packetizer's first RTP timestamp (random), the origin of this track's media time. */
  readonly startTimestamp: number;
  /** Sends one access unit / audio frame with this RTP timestamp; false when it was not sent. */
  send(data: Buffer, rtpTimestamp: number): boolean;
}

export interface SenderOptions {
  video: RtpOutput;
  audio?: { output: RtpOutput; codec: 'pcmu' | 'pcma' | 'opus' } | null;
  /** Queue bounds; above either, the queue is dropped and video waits for a keyframe. */
  maxQueuedFrames?: number;
  maxQueuedBytes?: number;
  /** Called once, after the first successful video send. */
  onFirstSend?: () => void;
  timeline?: MediaTimeline;
}

export interface SenderStats {
  videoSent: number;
  audioSent: number;
  /** Records not sent: skipped while waiting for a keyframe, shed from the queue, refused by a track. */
  dropped: number;
  /** Times the queue overflowed. */
  overflows: number;
}

/** G.711 goes out in 20 ms packets (160 samples at 8 kHz), whatever size zmc's packets have. */
const G711_SAMPLES_PER_PACKET = 160;
const DEFAULT_MAX_FRAMES = 120;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export class ViewerSender {
  readonly stats: SenderStats = { videoSent: 0, audioSent: 0, dropped: 0, overflows: 0 };
  readonly #client: StreamClient;
  readonly #video: RtpOutput;
  readonly #audio: SenderOptions['audio'];
  readonly #timeline: MediaTimeline;
  readonly #maxFrames: number;
  readonly #maxBytes: number;
  #onFirstSend: (() => void) | undefined;
  #queue: MediaRecord[] = [];
  #queuedBytes = 0;
  #drainScheduled = false;
  #started = false;
  #stopped = false;
  #needKeyframe = true;
  /** The queue overflowed: video is dropped on arrival until a keyframe. */
  #shedding = false;
  #videoStarted = false;
  #lastVideo: { sequence: number; generation: number } | null = null;
  /** The newest live video timestamp seen before start (the live edge, for the fast-start frame). */
  #liveEdge: { ptsUs: number; generation: number } | null = null;

  readonly #onMedia = (r: MediaRecord) => this.#receive(r);
  readonly #onBreak = () => {
    this.#needKeyframe = true;
    this.#timeline.markBreak();
  };

  constructor(client: StreamClient, options: SenderOptions) {
    this.#client = client;
    this.#video = options.video;
    this.#audio = options.audio ?? null;
    this.#timeline = options.timeline ?? new MediaTimeline();
    this.#maxFrames = options.maxQueuedFrames ?? DEFAULT_MAX_FRAMES;
    this.#maxBytes = options.maxQueuedBytes ?? DEFAULT_MAX_BYTES;
    this.#onFirstSend = options.onFirstSend;
    client.on('media', this.#onMedia);
    client.on('generation', this.#onBreak);
    client.on('disconnected', this.#onBreak);
  }

  get started(): boolean {
    return this.#started;
  }

  /**
   * Media may flow (the peer is connected): the cached keyframe goes out first, so the picture
   * appears at once. It is stamped at the live edge; live frames follow it only when they
   * continue it (next sequence number), otherwise video resumes at the next keyframe.
   */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    const kf = this.#client.closed ? null : this.#client.latestKeyframe();
    if (!kf) return;
    const edge = this.#liveEdge;
    const pts = edge && edge.generation === kf.generation && edge.ptsUs > kf.ptsUs ? edge.ptsUs : kf.ptsUs;
    if (this.#sendVideo(kf.data, this.#timeline.place(pts, kf.generation))) {
      this.#needKeyframe = false;
      this.#lastVideo = { sequence: kf.sequence, generation: kf.generation };
    }
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#client.off('media', this.#onMedia);
    this.#client.off('generation', this.#onBreak);
    this.#client.off('disconnected', this.#onBreak);
    this.#queue = [];
    this.#queuedBytes = 0;
  }

  #receive(r: MediaRecord): void {
    if (this.#stopped) return;
    if (!this.#started) {
      if (r.stream === 'video' && !r.cached) this.#liveEdge = { ptsUs: r.ptsUs, generation: r.generation };
      return;
    }
    if (r.stream === 'audio' && !this.#audio) return;
    // After shedding, video is not even queued until the keyframe it can restart from.
    if (r.stream === 'video' && this.#shedding) {
      if (!r.keyframe || r.cached) {
        this.stats.dropped++;
        return;
      }
      this.#shedding = false;
    }
    if (this.#queue.length >= this.#maxFrames || this.#queuedBytes + r.data.length > this.#maxBytes) this.#shed();
    this.#queue.push(r);
    this.#queuedBytes += r.data.length;
    if (!this.#drainScheduled) {
      this.#drainScheduled = true;
      setImmediate(() => this.#drain());
    }
  }

  /** Too far behind: drop everything queued and start again at the next keyframe. */
  #shed(): void {
    this.stats.dropped += this.#queue.length;
    this.stats.overflows++;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#needKeyframe = true;
    this.#shedding = true;
  }

  #drain(): void {
    this.#drainScheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
    for (const r of batch) {
      if (this.#stopped) return;
      if (r.stream === 'video') this.#onVideo(r);
      else this.#onAudio(r);
    }
  }

  #onVideo(r: MediaRecord): void {
    // zmc's cached KEYFRAME (sent on connect) is older than the live frames after it.
    if (r.cached) {
      this.stats.dropped++;
      return;
    }
    const last = this.#lastVideo;
    if (last && (r.generation !== last.generation || r.sequence !== last.sequence + 1 || r.gap > 0))
      this.#needKeyframe = true;
    this.#lastVideo = { sequence: r.sequence, generation: r.generation };
    if (this.#needKeyframe && !r.keyframe) {
      this.stats.dropped++;
      return;
    }
    // A frame the browser did not get breaks the chain of references: wait for the next keyframe.
    this.#needKeyframe = !this.#sendVideo(r.data, this.#timeline.place(r.ptsUs, r.generation));
  }

  #sendVideo(data: Buffer, mediaUs: number): boolean {
    const ok = this.#video.send(data, rtpTimestamp(this.#video.startTimestamp, mediaUs, this.#video.clockRate));
    if (!ok) {
      this.stats.dropped++;
      return false;
    }
    this.stats.videoSent++;
    this.#videoStarted = true;
    const first = this.#onFirstSend;
    this.#onFirstSend = undefined;
    first?.();
    return true;
  }

  #onAudio(r: MediaRecord): void {
    const audio = this.#audio!;
    // Audio starts with the picture: the shared timeline is anchored on video.
    if (!this.#videoStarted) {
      this.stats.dropped++;
      return;
    }
    const out = audio.output;
    const ts = rtpTimestamp(out.startTimestamp, this.#timeline.place(r.ptsUs, r.generation), out.clockRate);
    if (audio.codec === 'opus') {
      if (out.send(r.data, ts)) this.stats.audioSent++;
      else this.stats.dropped++;
      return;
    }
    // G.711 is one byte per sample: re-packetise into 20 ms packets, timestamps in samples.
    for (let off = 0; off < r.data.length; off += G711_SAMPLES_PER_PACKET) {
      const chunk = r.data.subarray(off, off + G711_SAMPLES_PER_PACKET);
      if (out.send(chunk, (ts + off) % 2 ** 32)) this.stats.audioSent++;
      else this.stats.dropped++;
    }
  }
}
