// A fake capture daemon (zmc) serving stream-socket protocol v1 (docs/zoneminder/stream-socket.md) from real media.
//
// Each connection gets: HELLO video, HELLO audio (if the clip has audio), EVENT snapshot,
// KEYFRAME (only when joining mid-clip), then the clip's access units and audio packets
// interleaved in decode order, at real-time pace or as fast as the reader takes them, with
// STATS at an interval. Test controls: generation bump, events, raw bytes (protocol
// violations), kick (disconnect), BYE, a disconnect after N media messages, and zmc's per-client
// queue limit (a slow reader then loses messages, which it sees as sequence gaps).

import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  EVENT,
  MSG,
  encodeMessage,
  eventPayload,
  helloPayload,
  type EventFields,
} from '../../src/sim/stream-protocol.js';
import type { MediaClip, MediaFrame } from './media.js';

// The wire encoders are shared with the simulated camera (src/sim/stream-protocol.ts).
export {
  EVENT,
  MSG,
  encodeMessage,
  eventPayload,
  helloPayload,
  type EventFields,
  type Header,
} from '../../src/sim/stream-protocol.js';

export interface FakeZmcOptions {
  clip: MediaClip;
  monitorId?: number;
  /** Directory for the socket; default: a new temporary one (removed by close()). */
  dir?: string;
  pace?: 'realtime' | 'fast';
  /** Added to the clip's timestamps (zmc's clock is not zero-based). */
  basePtsUs?: number;
  /** Start each connection at this video frame index: a KEYFRAME (the last keyframe before it) is sent first. */
  joinAt?: number;
  /** Close the first connection after this many media messages. */
  disconnectAfter?: number;
  /** zmc's per-client queue limit: beyond it, media messages are dropped (sequence numbers still advance). */
  maxQueueBytes?: number;
  statsIntervalMs?: number;
  /** Hold the connection open after the clip ends (default true); false closes it (EOF). */
  holdOpen?: boolean;
  /** Send BYE before closing at the end of the clip. */
  byeAtEnd?: boolean;
  /** Wait this long after the HELLOs before the first media message (a camera slow to its first keyframe). */
  mediaDelayMs?: number;
}

interface Item {
  stream: 0 | 1;
  frame: MediaFrame;
  index: number;
}

class Connection {
  sent = 0;
  dropped = 0;
  mediaSent = 0;
  readonly seq = [0, 0];
  closed = false;
  /** The whole clip has been offered (sent or dropped); `sent` at that moment. */
  finished = false;
  sentAtFinish = 0;
  skipToKeyframe = false;

  constructor(readonly socket: Socket) {
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => {});
  }
}

export class FakeZmc {
  readonly path: string;
  readonly dir: string;
  generation = 1;
  accepted = 0;
  readonly connections: Connection[] = [];
  #server: Server;
  #options: FakeZmcOptions;
  #ownDir: boolean;
  #items: Item[];

  private constructor(options: FakeZmcOptions, dir: string, ownDir: boolean) {
    this.#options = options;
    this.dir = dir;
    this.#ownDir = ownDir;
    this.path = join(dir, `stream_${options.monitorId ?? 1}.sock`);
    this.#items = interleave(options.clip);
    this.#server = createServer((socket) => void this.#serve(new Connection(socket)));
  }

  static async start(options: FakeZmcOptions): Promise<FakeZmc> {
    const own = options.dir === undefined;
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'zm_sock_'));
    const z = new FakeZmc(options, dir, own);
    z.#server.listen(z.path);
    await once(z.#server, 'listening');
    return z;
  }

  /** zmc's timestamp for a clip time. */
  pts(clipUs: number): number {
    return (this.#options.basePtsUs ?? 1_700_000_000_000_000) + clipUs;
  }

  /** A parameter change: new generation, sequences restart, HELLOs again; media resumes at a keyframe. */
  bumpGeneration(): void {
    this.generation++;
    for (const c of this.#live()) {
      c.seq[0] = c.seq[1] = 0;
      c.skipToKeyframe = true;
      this.#sendHellos(c);
    }
  }

  sendEvent(code: number, fields: EventFields = {}, sequence = 1): void {
    for (const c of this.#live())
      this.#write(
        c,
        encodeMessage(
          { type: MSG.event, stream: 2, sequence, generation: this.generation },
          eventPayload(code, fields),
        ),
        true,
      );
  }

  sendRaw(bytes: Buffer): void {
    for (const c of this.#live()) c.socket.write(bytes);
  }

  bye(): void {
    for (const c of this.#live()) {
      this.#write(c, encodeMessage({ type: MSG.bye, stream: 0, generation: this.generation }), true);
      c.socket.end();
    }
  }

  /** Drops every connection (like a zmc crash). */
  kick(): void {
    for (const c of this.#live()) c.socket.destroy();
  }

  async waitForConnections(n: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.accepted < n) {
      if (Date.now() > deadline)
        throw new Error(`fake zmc: ${this.accepted} of ${n} connections after ${timeoutMs} ms`);
      await sleep(5);
    }
  }

  async close(): Promise<void> {
    this.kick();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    if (this.#ownDir) rmSync(this.dir, { recursive: true, force: true });
  }

  #live(): Connection[] {
    return this.connections.filter((c) => !c.closed);
  }

  #sendHellos(c: Connection): void {
    const { clip } = this.#options;
    this.#write(
      c,
      encodeMessage({ type: MSG.hello, stream: 0, generation: this.generation }, helloPayload(clip.video)),
      true,
    );
    if (clip.audio)
      this.#write(
        c,
        encodeMessage({ type: MSG.hello, stream: 1, generation: this.generation }, helloPayload(clip.audio)),
        true,
      );
  }

  // Control messages are always queued (as zmc does); media is dropped when over the queue limit.
  #write(c: Connection, bytes: Buffer, control: boolean): boolean {
    const limit = this.#options.maxQueueBytes;
    if (!control && limit !== undefined && c.socket.writableLength > limit) {
      c.dropped++;
      return false;
    }
    c.sent++;
    return c.socket.write(bytes);
  }

  async #serve(c: Connection): Promise<void> {
    this.accepted++;
    this.connections.push(c);
    const first = this.connections.length === 1;
    const o = this.#options;
    this.#sendHellos(c);
    this.#write(
      c,
      encodeMessage(
        { type: MSG.event, stream: 2, sequence: 0, generation: this.generation },
        eventPayload(EVENT.snapshot, { stateName: 'IDLE', stateId: 1 }),
      ),
      true,
    );
    let start = 0;
    if (o.joinAt) {
      const video = o.clip.video.frames;
      let k = o.joinAt;
      while (k > 0 && !video[k].keyframe) k--;
      this.#write(
        c,
        encodeMessage(
          {
            type: MSG.keyframe,
            stream: 0,
            flags: 1,
            sequence: k,
            generation: this.generation,
            ptsUs: this.pts(video[k].ptsUs),
          },
          video[k].data,
        ),
        true,
      );
      start = this.#items.findIndex((it) => it.stream === 0 && it.index === o.joinAt);
      c.seq[0] = o.joinAt;
    }
    const stats = setInterval(() => {
      if (c.closed) return;
      const b = Buffer.alloc(16);
      b.writeBigUInt64LE(BigInt(c.sent), 0);
      b.writeBigUInt64LE(BigInt(c.dropped), 8);
      this.#write(c, encodeMessage({ type: MSG.stats, stream: 0, generation: this.generation }, b), true);
    }, o.statsIntervalMs ?? 5000);
    stats.unref();
    try {
      if (o.mediaDelayMs) await sleep(o.mediaDelayMs);
      const t0 = Date.now();
      const d0 = this.#items[start]?.frame.dtsUs ?? 0;
      for (let i = start; i < this.#items.length && !c.closed; i++) {
        const { stream, frame } = this.#items[i];
        if (o.pace === 'realtime') {
          const due = t0 + (frame.dtsUs - d0) / 1000;
          if (due > Date.now()) await sleep(due - Date.now());
        }
        if (c.skipToKeyframe) {
          if (stream !== 0 || !frame.keyframe) continue;
          c.skipToKeyframe = false;
        }
        const msg = encodeMessage(
          {
            type: MSG.media,
            stream,
            flags: frame.keyframe && stream === 0 ? 1 : 0,
            sequence: c.seq[stream]++,
            generation: this.generation,
            ptsUs: this.pts(frame.ptsUs),
          },
          frame.data,
        );
        const flushed = this.#write(c, msg, false);
        c.mediaSent++;
        if (first && o.disconnectAfter !== undefined && c.mediaSent >= o.disconnectAfter) {
          c.socket.destroy();
          break;
        }
        // Without a queue limit, honour back-pressure instead of buffering without bound.
        if (!flushed && o.maxQueueBytes === undefined && !c.closed)
          await Promise.race([once(c.socket, 'drain'), once(c.socket, 'close')]).catch(() => {}); // 'error' rejects: the peer went away
        if (o.maxQueueBytes !== undefined && i % 8 === 0) await sleep(1); // let the socket drain meanwhile
      }
      c.finished = true;
      c.sentAtFinish = c.sent;
      if (!c.closed && o.byeAtEnd) this.bye();
      else if (!c.closed && o.holdOpen === false) c.socket.end();
    } finally {
      if (c.closed || o.holdOpen === false || o.byeAtEnd) clearInterval(stats);
      else c.socket.once('close', () => clearInterval(stats));
    }
  }
}

/** Video and audio frames merged in decode order (zmc sends them as demuxed). */
function interleave(clip: MediaClip): Item[] {
  const items: Item[] = clip.video.frames.map((frame, index) => ({ stream: 0 as const, frame, index }));
  clip.audio?.frames.forEach((frame, index) => items.push({ stream: 1, frame, index }));
  return items.sort((a, b) => a.frame.dtsUs - b.frame.dtsUs || a.stream - b.stream);
}
