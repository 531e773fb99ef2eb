// Helper of bench/live-viewers.ts: one WebRTC viewer playing the browser with node-datachannel
// (like test/helpers/rtc-peer.ts): it answers the server's offer on the signalling socket,
// trickles ICE both ways, and timestamps every video access unit when its last RTP packet (the
// marker) arrives. Nothing is kept per packet, so 32 of them can run for minutes.
//
// Which clip frame a unit is: the server stamps RTP as `random start + (ptsUs − ptsUs of the
// viewer's first frame) × 90 kHz` (media-timeline.ts / media-sender.ts), and that first frame is
// the cached keyframe stamped at the live edge, so the offset is unknown to the viewer. The first
// unit whose bytes match a clip frame anchors it; later units map by RTP timestamp (one frame =
// 90000 / fps ticks), and every keyframe is checked against the clip again (re-anchoring after a
// timeline break).
import { createHash } from 'node:crypto';
import ndc from 'node-datachannel';
import { WebSocket } from 'ws';
import { holdTrack } from '../src/features/live/webrtc/track-registry.js';
import { splitAnnexB, type MediaClip } from '../test/helpers/media.js';
import { H264Depacketizer, parseRtp } from '../test/helpers/rtp.js';

/** Frame index by a hash of its slice NAL units (start codes and parameter sets left out). */
export type ClipIndex = Map<string, number>;

function vclHash(annexB: Buffer): string {
  const h = createHash('sha1');
  for (const nal of splitAnnexB(annexB)) {
    const type = nal[0]! & 0x1f;
    if (type >= 1 && type <= 5) h.update(nal);
  }
  return h.digest('hex');
}

export function clipIndex(clip: MediaClip): ClipIndex {
  const index: ClipIndex = new Map();
  clip.video.frames.forEach((f, i) => {
    const key = vclHash(f.data);
    index.set(key, index.has(key) ? -1 : i); // -1: not unique, useless as an anchor
  });
  return index;
}

export interface UnitArrival {
  /** Clip video frame index. */
  frame: number;
  /** Date.now() when its last RTP packet arrived. */
  at: number;
}

export class BenchRtcViewer {
  packets = 0;
  units = 0;
  /** Units whose frame could not be told (before the anchor, or failing the keyframe check). */
  unmatched = 0;
  /** Keyframes after the anchor whose content was checked against their RTP-timestamp frame. */
  checked = 0;
  /** Of those, the ones that disagreed (the mapping was re-anchored on them). */
  reanchored = 0;
  ready = false;
  error: string | null = null;
  readonly #ws: WebSocket;
  readonly #pc: ndc.PeerConnection;
  readonly #tracks: ndc.Track[] = [];
  readonly #depack = new H264Depacketizer();
  readonly #ticksPerFrame: number;
  #anchor: { timestamp: number; frame: number } | null = null;

  private constructor(
    ws: WebSocket,
    sessionId: string,
    offerSdp: string,
    private readonly index: ClipIndex,
    fps: number,
    private readonly onUnit: (u: UnitArrival) => void,
  ) {
    this.#ws = ws;
    this.#ticksPerFrame = 90_000 / fps;
    // Loopback only, like the tests' viewer: the server's host candidates are its interface
    // addresses, which a socket bound to 127.0.0.1 reaches on this machine.
    this.#pc = new ndc.PeerConnection('bench-viewer', { iceServers: [], bindAddress: '127.0.0.1' });
    this.#pc.onLocalDescription((sdp, type) => {
      if (type === 'answer') ws.send(JSON.stringify({ type: 'answer', session_id: sessionId, sdp }));
    });
    this.#pc.onLocalCandidate((candidate, mid) => {
      ws.send(
        JSON.stringify({
          type: 'icecandidate',
          session_id: sessionId,
          candidate: candidate.replace(/^a=/, ''),
          sdpMid: mid,
          sdpMLineIndex: Number(mid),
        }),
      );
    });
    this.#pc.onTrack((track) => {
      this.#tracks.push(holdTrack(track));
      if (track.type() === 'audio') return;
      track.onMessage((msg) => this.#onRtp(Buffer.from(msg)));
    });
    if (process.env.BENCH_RTC_DEBUG) {
      const tag = () => `${Date.now()} ${/live\/(\d+)/.exec(ws.url)?.[1]} viewer`;
      this.#pc.onStateChange((st) => console.error(tag(), 'state', st));
      this.#pc.onIceStateChange((st) => console.error(tag(), 'ice', st));
      this.#pc.onGatheringStateChange((st) => console.error(tag(), 'gathering', st));
    }
    this.#pc.setRemoteDescription(offerSdp, 'offer');
  }

  /** Opens the signalling socket and answers the offer; resolves once the server said `ready`. */
  static connect(
    url: string,
    index: ClipIndex,
    fps: number,
    onUnit: (u: UnitArrival) => void,
    timeoutMs = 20_000,
  ): Promise<BenchRtcViewer> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      let viewer: BenchRtcViewer | null = null;
      let settled = false;
      const fail = (why: string) => {
        clearTimeout(timer);
        if (viewer) viewer.error ??= why;
        if (settled) return;
        settled = true;
        // Not ready: nobody else holds this viewer, so its peer and socket end here.
        if (viewer) viewer.close();
        else ws.terminate();
        reject(new Error(why));
      };
      const timer = setTimeout(() => fail(`no "ready" within ${timeoutMs} ms`), timeoutMs);
      ws.on('error', (err) => fail(`signalling: ${err.message}`));
      ws.on('close', (code) => {
        if (viewer) viewer.error ??= `signalling closed (${code})`;
        if (!settled) fail(`signalling closed (${code}) before ready`);
      });
      ws.on('message', (data, binary) => {
        if (binary) return;
        const m = JSON.parse(data.toString()) as {
          type: string;
          session_id?: string;
          sdp?: string;
          candidate?: string;
          sdpMid?: string | null;
          message?: string;
        };
        if (process.env.BENCH_RTC_DEBUG)
          console.error(Date.now(), /live\/(\d+)/.exec(url)?.[1], m.type, m.candidate ?? m.message ?? '');
        if (m.type === 'offer' && !viewer) viewer = new BenchRtcViewer(ws, m.session_id!, m.sdp!, index, fps, onUnit);
        else if (m.type === 'icecandidate' && viewer) viewer.#pc.addRemoteCandidate(m.candidate!, m.sdpMid ?? '0');
        else if (m.type === 'ready' && viewer) {
          viewer.ready = true;
          settled = true;
          clearTimeout(timer);
          resolve(viewer);
        } else if (m.type === 'error') {
          if (viewer) viewer.error ??= m.message ?? 'error';
          if (!settled) fail(`server error: ${m.message}`);
        }
      });
    });
  }

  #onRtp(buf: Buffer): void {
    const p = parseRtp(buf);
    if (!p) return;
    this.packets++;
    this.#depack.push(p);
    if (this.#depack.units.length === 0) return;
    const at = Date.now();
    for (const unit of this.#depack.units.splice(0)) {
      // The first unit is the fast-start keyframe, stamped at the live edge rather than at its
      // own pts: it cannot anchor the timestamp mapping.
      const frame = this.units++ === 0 ? null : this.#frameOf(unit.timestamp, unit.data, unit.keyframe);
      if (frame === null) this.unmatched++;
      else this.onUnit({ frame, at });
    }
  }

  /** The clip frame of a unit: by RTP timestamp once anchored; by content before that and for keyframes. */
  #frameOf(timestamp: number, data: Buffer, keyframe: boolean): number | null {
    const anchor = this.#anchor;
    const byTime = anchor
      ? anchor.frame + Math.round(((timestamp - anchor.timestamp + 2 ** 32) % 2 ** 32) / this.#ticksPerFrame)
      : null;
    if (byTime !== null && !keyframe) return byTime;
    const byContent = this.index.get(vclHash(data));
    if (byContent === undefined || byContent < 0) return byTime;
    if (byTime !== null) {
      this.checked++;
      if (byTime !== byContent) this.reanchored++;
    }
    this.#anchor = { timestamp, frame: byContent };
    return byContent;
  }

  close(): void {
    for (const t of this.#tracks) t.close();
    this.#pc.close();
    this.#ws.close();
  }
}
