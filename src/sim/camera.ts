// A simulated capture daemon (zmc) for one monitor, for the demo, benchmarks and tests:
//   - the stream socket `<socketDir>/stream_<id>.sock`, protocol v1 (docs/zoneminder/stream-socket.md): per client
//     HELLO video, EVENT snapshot, the cached KEYFRAME, then the live MEDIA of a looping H.264
//     clip (assets/sim/camera-640x360.h264), paced in real time with monotonically increasing
//     timestamps across loops, STATS every 5 s, BYE on close. One live timeline shared by all
//     clients (as zmc: sequences count produced messages); a client whose queue exceeds 8 MiB
//     loses media (a sequence gap), never control messages.
//   - the shared memory `<mapDir>/zm.mmap.<id>` of the 888 layout (shm-writer.ts): a moving
//     synthetic rgb24 picture at `shmFps`, the heartbeat every second, and the alarm trigger,
//     read at every picture as zmc reads it at every frame: a forced alarm (TriggerData ON)
//     turns the state to Alarm (EVENT state_changed), a cancel or off turns it back to Idle.
// restart() is a zmc restart: the connections end, a new shm file (new inode) and a new generation.
import { readFileSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { once } from 'node:events';
import { packageRoot } from '../paths.js';
import { type AccessUnit, splitAccessUnits } from './annexb.js';
import { MovingPattern } from './pattern.js';
import { SimSharedMemory } from './shm-writer.js';
import { CODEC_ID, EVENT, MSG, encodeMessage, eventPayload, helloPayload, statsPayload } from './stream-protocol.js';

/** The shipped clip (scripts/make-sim-camera.sh): 640×360, 25 fps, 10 s, 1 s GOP, no B-frames. */
export const SIM_CLIP = {
  path: join(packageRoot, 'assets', 'sim', 'camera-640x360.h264'),
  width: 640,
  height: 360,
  fps: 25,
} as const;

export interface SimCameraOptions {
  monitorId: number;
  /** ZM_PATH_SOCKS: the socket goes here. */
  socketDir: string;
  /** ZM_PATH_MAP: the shared memory file goes here. */
  mapDir: string;
  /** Shared-memory images per second (default 5). */
  shmFps?: number;
  /** Monitors.ImageBufferCount of the shared memory ring (default 3). */
  imageBufferCount?: number;
  /** Per-client queue limit in bytes before media is dropped (zmc's default 8 MiB). */
  maxQueueBytes?: number;
  /**
   * Monitors.Orientation: zmc stores turned images, so for ROTATE_90/270 the shared-memory
   * picture is 360×640 (the stream socket still carries the camera's own 640×360 frames).
   */
  orientation?: 'ROTATE_0' | 'ROTATE_90' | 'ROTATE_180' | 'ROTATE_270' | 'FLIP_HORI' | 'FLIP_VERT';
}

const STATE = { idle: 1, alarm: 3 } as const;

interface Client {
  socket: Socket;
  sent: number;
  dropped: number;
  stats: NodeJS.Timeout;
}

interface Clip {
  units: AccessUnit[];
  extradata: Buffer;
}
let clipCache: Clip | null = null;
function loadClip(): Clip {
  clipCache ??= splitAccessUnits(readFileSync(SIM_CLIP.path));
  return clipCache;
}

export class SimCamera {
  readonly socketPath: string;
  readonly width = SIM_CLIP.width;
  readonly height = SIM_CLIP.height;
  /** The shared-memory image size (turned for ROTATE_90/270). */
  readonly shmWidth: number;
  readonly shmHeight: number;
  generation = 0;
  #o: Required<SimCameraOptions>;
  #clip = loadClip();
  #server: Server | null = null;
  #shm: SimSharedMemory | null = null;
  #clients = new Set<Client>();
  #timers: NodeJS.Timeout[] = [];
  #frameTimer: NodeJS.Timeout | null = null;
  #pattern: MovingPattern;
  #seq = 0;
  #eventSeq = 0;
  #frame = 0;
  #t0 = 0;
  #basePtsUs = 0;
  #keyframe: { data: Buffer; seq: number; ptsUs: number } | null = null;
  #state: number = STATE.idle;

  private constructor(options: SimCameraOptions) {
    this.#o = { shmFps: 5, imageBufferCount: 3, maxQueueBytes: 8 * 1024 * 1024, orientation: 'ROTATE_0', ...options };
    this.socketPath = join(options.socketDir, `stream_${options.monitorId}.sock`);
    const swap = this.#o.orientation === 'ROTATE_90' || this.#o.orientation === 'ROTATE_270';
    this.shmWidth = swap ? this.height : this.width;
    this.shmHeight = swap ? this.width : this.height;
    this.#pattern = new MovingPattern(this.shmWidth, this.shmHeight);
  }

  static async start(options: SimCameraOptions): Promise<SimCamera> {
    const cam = new SimCamera(options);
    await cam.#start();
    return cam;
  }

  get shmPath(): string {
    return join(this.#o.mapDir, `zm.mmap.${this.#o.monitorId}`);
  }

  /** Connected stream-socket clients. */
  get clients(): number {
    return this.#clients.size;
  }

  async #start(): Promise<void> {
    this.generation++;
    this.#keyframe = null;
    this.#seq = 0;
    this.#frame = 0;
    this.#state = STATE.idle;
    this.#shm = new SimSharedMemory({ ...this.#o, width: this.shmWidth, height: this.shmHeight, fps: SIM_CLIP.fps });
    rmSync(this.socketPath, { force: true }); // a stale socket from a crashed run (zmc unlinks it too)
    const server = createServer((socket) => this.#accept(socket));
    server.listen(this.socketPath);
    await once(server, 'listening');
    this.#server = server;
    this.#t0 = Date.now();
    this.#basePtsUs = this.#t0 * 1000;
    this.#scheduleFrame();
    const shmTimer = setInterval(() => this.#writeImage(), 1000 / this.#o.shmFps);
    const beat = setInterval(() => this.#heartbeat(), 1000);
    this.#timers = [shmTimer, beat];
    this.#writeImage();
  }

  /** Stops like a zmc exit: BYE and close for every client, socket and shm file removed. */
  async stop(): Promise<void> {
    if (this.#frameTimer) clearTimeout(this.#frameTimer);
    this.#frameTimer = null;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    for (const c of this.#clients) {
      clearInterval(c.stats);
      c.socket.end(encodeMessage({ type: MSG.bye, stream: 0, generation: this.generation }));
    }
    this.#clients.clear();
    const server = this.#server;
    this.#server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(this.socketPath, { force: true });
    this.#shm?.close();
    this.#shm = null;
  }

  /** A zmc restart: everything stops, then starts again with a new generation and a new shm inode. */
  async restart(): Promise<void> {
    await this.stop();
    await this.#start();
  }

  #accept(socket: Socket): void {
    socket.on('error', () => {});
    const client: Client = {
      socket,
      sent: 0,
      dropped: 0,
      stats: setInterval(() => this.#send(client, MSG.stats, statsPayload(client.sent, client.dropped)), 5000),
    };
    client.stats.unref();
    this.#clients.add(client);
    socket.on('close', () => {
      clearInterval(client.stats);
      this.#clients.delete(client);
    });
    this.#write(
      client,
      encodeMessage({ type: MSG.hello, stream: 0, generation: this.generation }, this.#hello()),
      true,
    );
    this.#write(
      client,
      encodeMessage(
        { type: MSG.event, stream: 2, sequence: this.#eventSeq, generation: this.generation },
        eventPayload(EVENT.snapshot, {
          wallClockUs: BigInt(Date.now()) * 1000n,
          stateId: this.#state,
          stateName: this.#state === STATE.alarm ? 'ALARM' : 'IDLE',
        }),
      ),
      true,
    );
    const k = this.#keyframe;
    if (k)
      this.#write(
        client,
        encodeMessage(
          { type: MSG.keyframe, stream: 0, flags: 1, sequence: k.seq, generation: this.generation, ptsUs: k.ptsUs },
          k.data,
        ),
        true,
      );
  }

  #hello(): Buffer {
    return helloPayload({
      codecId: CODEC_ID.h264,
      extradata: this.#clip.extradata,
      width: this.width,
      height: this.height,
      fpsNum: SIM_CLIP.fps,
      fpsDen: 1,
    });
  }

  #send(client: Client, type: number, payload: Buffer): void {
    this.#write(client, encodeMessage({ type, stream: 0, generation: this.generation }, payload), true);
  }

  // Control messages are always queued; media is dropped beyond the per-client limit (zmc's policy).
  #write(client: Client, bytes: Buffer, control: boolean): void {
    if (client.socket.destroyed) return;
    if (!control && client.socket.writableLength > this.#o.maxQueueBytes) {
      client.dropped++;
      return;
    }
    client.sent++;
    client.socket.write(bytes);
  }

  // Frame k is due at t0 + k/fps: timers that fire late do not accumulate drift.
  #scheduleFrame(): void {
    const due = this.#t0 + (this.#frame * 1000) / SIM_CLIP.fps;
    this.#frameTimer = setTimeout(() => this.#sendFrame(), Math.max(0, due - Date.now()));
  }

  #sendFrame(): void {
    const units = this.#clip.units;
    const unit = units[this.#frame % units.length]!;
    const ptsUs = this.#basePtsUs + Math.round((this.#frame * 1e6) / SIM_CLIP.fps);
    const seq = this.#seq++;
    if (unit.keyframe) this.#keyframe = { data: unit.data, seq, ptsUs };
    const msg = encodeMessage(
      { type: MSG.media, stream: 0, flags: unit.keyframe ? 1 : 0, sequence: seq, generation: this.generation, ptsUs },
      unit.data,
    );
    for (const c of this.#clients) this.#write(c, msg, false);
    this.#frame++;
    this.#scheduleFrame();
  }

  #writeImage(): void {
    const now = Date.now();
    this.#shm?.writeImage(this.#pattern.draw((now - this.#t0) / 1000), now * 1000);
    this.#followTrigger();
  }

  #heartbeat(): void {
    this.#shm?.heartbeat();
    this.#followTrigger();
  }

  #followTrigger(): void {
    const shm = this.#shm;
    if (!shm) return;
    const { state, cause } = shm.trigger();
    const next = state === 'on' ? STATE.alarm : STATE.idle;
    if (next === this.#state) return;
    const prev = this.#state;
    this.#state = next;
    shm.setState(next, next === STATE.alarm ? cause : '');
    const payload = eventPayload(EVENT.stateChanged, {
      wallClockUs: BigInt(Date.now()) * 1000n,
      stateId: next,
      prevStateId: prev,
      stateName: next === STATE.alarm ? 'ALARM' : 'IDLE',
      ...(next === STATE.alarm ? { message: cause } : {}),
    });
    const msg = encodeMessage(
      { type: MSG.event, stream: 2, sequence: ++this.#eventSeq, generation: this.generation },
      payload,
    );
    for (const c of this.#clients) this.#write(c, msg, true);
  }
}
