// Live view through the whole service : 1, 8 and 32 simulated cameras (fake zmcs in a
// child process, 640x360 H.264 at 25 fps and ~1 Mbit/s), each watched by one LL-HLS viewer and
// one WebRTC viewer in this process. The LL-HLS viewer behaves like hls.js in low-latency mode
// (fetch the preload-hinted part — the server holds the request until the part exists — then a
// blocking playlist reload for the next one) over HTTP with a Bearer token; the WebRTC viewer is
// a node-datachannel peer on the signalling WebSocket (bench/_rtc-viewer.ts). The service runs
// in a child process of its own; its CPU (user+sys, % of one core) and RSS are read from /proc
// over the measured window.
//
// Frame k of the clip leaves the fake zmc at t0 + (k − 1) / fps: t0 is the zmc's connection wall
// clock (frame 1 goes out then: it joins at frame 1) and the clip has no B-frames.
// LL-HLS latency = when the viewer holds a part − when its last frame was sent (packaging starts
// at the next keyframe, frame `fps`, which is media time 0; the frame's media time comes from
// the part's tfdt/trun). A part can only be cut when the frame after it arrives, so one frame
// interval (40 ms) is the floor.
// WebRTC latency = when the last RTP packet (marker) of a frame arrives − when it was sent; the
// frame is told by its RTP timestamp (anchored on the clip by content, see _rtc-viewer.ts).
//
//   npx tsx bench/live-viewers.ts [--seconds S=15] [--cameras 1,8,32] [--webrtc 0]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import bcrypt from 'bcryptjs';
import { convergeSchema } from '../src/db/converge/index.js';
import { startThrowawayMariaDb } from '../src/devdb/throwaway-mariadb.js';
import { createConnection } from 'mariadb';
import { mediaClip } from '../test/helpers/media.js';
import { BenchRtcViewer, clipIndex, type ClipIndex } from './_rtc-viewer.js';
import { cpuSeconds, rssMb, serviceEnv } from './_service.js';
import { flag } from './_args.js';
import { followLiveHls } from './_ll-hls.js';

const SECONDS = Number(flag('seconds') ?? '15');
const CAMERAS = (flag('cameras') ?? '1,8,32').split(',').map(Number);
const WEBRTC = (flag('webrtc') ?? '1') !== '0';
const WARMUP_MS = 4000;
const CLIP = { video: 'h264-high' as const, width: 640, height: 360, fps: 25, seconds: 60, bitrate: '1M', noise: true };
const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.join(here, '..');

function child(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): { proc: ChildProcess; lines: AsyncIterableIterator<string> } {
  const proc = spawn(process.execPath, ['--import=tsx', path.join(here, script), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { proc, lines: createInterface({ input: proc.stdout! })[Symbol.asyncIterator]() };
}

async function lineStarting(lines: AsyncIterableIterator<string>, prefix: string): Promise<string> {
  for (;;) {
    const { value, done } = await lines.next();
    if (done) throw new Error(`child ended before "${prefix}"`);
    if (value.startsWith(prefix)) return value;
  }
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
  });
}

/** Media time (s, 90 kHz video) at which a part's last frame starts, from its first moof. */
function lastFrameTime(part: Buffer): number | null {
  const boxes = (buf: Buffer, start: number, end: number) => {
    const out: Array<{ type: string; body: number; end: number }> = [];
    for (let p = start; p + 8 <= end;) {
      const size = buf.readUInt32BE(p);
      if (size < 8 || p + size > end) break;
      out.push({ type: buf.toString('latin1', p + 4, p + 8), body: p + 8, end: p + size });
      p += size;
    }
    return out;
  };
  const moof = boxes(part, 0, part.length).find((b) => b.type === 'moof');
  const traf = moof && boxes(part, moof.body, moof.end).find((b) => b.type === 'traf');
  if (!traf) return null;
  const inner = boxes(part, traf.body, traf.end);
  const tfhd = inner.find((b) => b.type === 'tfhd');
  const tfdt = inner.find((b) => b.type === 'tfdt');
  const trun = inner.find((b) => b.type === 'trun');
  if (!tfhd || !tfdt || !trun) return null;
  const base =
    part.readUInt8(tfdt.body) === 1 ? Number(part.readBigUInt64BE(tfdt.body + 4)) : part.readUInt32BE(tfdt.body + 4);
  const hf = part.readUInt32BE(tfhd.body) & 0xffffff;
  let q = tfhd.body + 8 + (hf & 0x1 ? 8 : 0) + (hf & 0x2 ? 4 : 0);
  const defaultDuration = hf & 0x8 ? part.readUInt32BE(q) : 0;
  const tf = part.readUInt32BE(trun.body) & 0xffffff;
  const count = part.readUInt32BE(trun.body + 4);
  q = trun.body + 8 + (tf & 0x1 ? 4 : 0) + (tf & 0x4 ? 4 : 0);
  const per = [0x100, 0x200, 0x400, 0x800].filter((f) => tf & f).length * 4;
  let t = base;
  for (let i = 0; i < count - 1; i++) t += tf & 0x100 ? part.readUInt32BE(q + i * per) : defaultDuration;
  return t / 90_000;
}

interface ViewerStats {
  parts: number;
  requests: number;
  errors: number;
  firstError: string | null;
  latencies: number[];
}

/** One hls.js-like LL viewer: hinted part, then a blocking reload for the next hint. */
async function viewer(
  api: (p: string) => string,
  token: string,
  id: number,
  connT0: () => number | undefined,
  measureFrom: number,
  until: number,
  s: ViewerStats,
): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const get = async (p: string) => {
    s.requests++;
    const res = await fetch(api(`/live/${id}/hls/${p}`), { headers });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) {
      s.errors++;
      s.firstError ??= `${res.status} ${p} ${body.toString().slice(0, 120)}`;
    }
    return { status: res.status, body };
  };
  await followLiveHls(
    get,
    () => Date.now() < until,
    (part) => {
      const received = Date.now();
      const t0 = connT0();
      if (part.status === 200 && received >= measureFrom && t0 !== undefined) {
        s.parts++;
        const media = lastFrameTime(part.body);
        // Media time 0 = clip frame `fps` (the first keyframe after joining), sent (fps − 1) frames after t0.
        if (media !== null) s.latencies.push(received - (t0 + (media + (CLIP.fps - 1) / CLIP.fps) * 1000));
      }
    },
  );
}

interface RtcStats {
  packets: number;
  latencies: number[];
  unmatched: number;
  checked: number;
  reanchored: number;
  errors: string[];
}

/** One WebRTC viewer per camera, connected together; latencies of frames arriving in [from, until). */
async function rtcViewers(
  wsUrl: (id: number) => string,
  n: number,
  index: ClipIndex,
  connT0: (id: number) => number | undefined,
  s: RtcStats,
): Promise<BenchRtcViewer[]> {
  const connect = async (id: number): Promise<BenchRtcViewer> => {
    // ICE on this shared VM now and then fails at once ("Peer connection failed"); a viewer
    // would reconnect (docs/contract/clients.md), so the bench does too, and reports it.
    for (let attempt = 1; ; attempt++) {
      try {
        return await BenchRtcViewer.connect(wsUrl(id), index, CLIP.fps, ({ frame, at }) => {
          const t0 = connT0(id);
          if (t0 !== undefined && measuring(at)) s.latencies.push(at - (t0 + ((frame - 1) / CLIP.fps) * 1000));
        });
      } catch (err) {
        s.errors.push(`connect ${id}: ${(err as Error).message}`);
        if (attempt === 3) throw err;
      }
    }
  };
  return Promise.all(Array.from({ length: n }, (_, i) => connect(i + 1)));
}

let measuring: (at: number) => boolean = () => false;

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

async function main(): Promise<void> {
  // Generated (or found in the media cache) here once, before the zmcs child loads it too.
  const index = clipIndex(await mediaClip(CLIP));
  const db = await startThrowawayMariaDb({ startTimeoutMs: 60_000 });
  const rows: string[] = [];
  try {
    const name = 'zm_live_bench';
    await db.createDatabase(name);
    const conn = await createConnection(db.connectionConfig(name));
    try {
      await convergeSchema(conn, { database: name });
    } finally {
      await conn.end();
    }
    await db.createUser('bench', 'bench-pass', name);
    await db.query(
      'INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Monitors) VALUES (?, ?, 1, 1, ?, ?)',
      ['bench', bcrypt.hashSync('bench', 4), 'View', 'View'],
      name,
    );
    for (let id = 1; id <= Math.max(...CAMERAS); id++)
      await db.query('INSERT INTO Monitors (Id, Name) VALUES (?, ?)', [id, `Cam ${id}`], name);

    for (const n of CAMERAS) {
      const dir = mkdtempSync(path.join(tmpdir(), 'zm_bench_'));
      const zmcs = child('_live-zmcs.ts', [dir, String(n), JSON.stringify(CLIP)]);
      const t0s = new Map<number, number>();
      await lineStarting(zmcs.lines, 'ready');
      void (async () => {
        for await (const line of zmcs.lines) {
          const m = /^conn (\d+) (\d+)$/.exec(line);
          if (m && !t0s.has(Number(m[1]))) t0s.set(Number(m[1]), Number(m[2]));
        }
      })();
      const server = child(
        '_live-server.ts',
        [],
        serviceEnv(db, name, { APP_ZONEMINDER__PATH_SOCKS: dir, APP_DB__MIGRATE_ON_START: 'false' }),
      );
      try {
        const url = (await lineStarting(server.lines, 'url ')).slice(4);
        const api = (p: string) => `${url}/api/v3${p}`;
        const login = await fetch(api('/auth/login'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'bench', password: 'bench' }),
        });
        const token = ((await login.json()) as { access_token: string }).access_token;
        for (let id = 1; id <= n; id++) {
          const res = await fetch(api(`/live/${id}/start`), {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ enable_webrtc: WEBRTC }),
          });
          if (res.status !== 200) throw new Error(`start ${id}: ${res.status} ${await res.text()}`);
        }
        const rtc: RtcStats = { packets: 0, latencies: [], unmatched: 0, checked: 0, reanchored: 0, errors: [] };
        const wsUrl = (id: number) =>
          `${url.replace(/^http/, 'ws')}/api/v3/live/${id}/webrtc/ws?token=${encodeURIComponent(token)}`;
        const peers = WEBRTC ? await rtcViewers(wsUrl, n, index, (id) => t0s.get(id), rtc) : [];
        const measureFrom = Date.now() + WARMUP_MS;
        const until = measureFrom + SECONDS * 1000;
        measuring = (at) => at >= measureFrom && at < until;
        const stats: ViewerStats = { parts: 0, requests: 0, errors: 0, firstError: null, latencies: [] };
        const viewers = Array.from({ length: n }, (_, i) =>
          viewer(api, token, i + 1, () => t0s.get(i + 1), measureFrom, until, stats),
        );
        await new Promise((r) => setTimeout(r, WARMUP_MS));
        const pid = server.proc.pid!;
        const cpu0 = cpuSeconds(pid);
        const requests0 = stats.requests;
        const packets0 = peers.reduce((a, p) => a + p.packets, 0);
        const rss: number[] = [];
        const sampler = setInterval(() => rss.push(rssMb(pid)), 1000);
        await Promise.all(viewers);
        clearInterval(sampler);
        const cpu = ((cpuSeconds(pid) - cpu0) / SECONDS) * 100;
        const packets = peers.reduce((a, p) => a + p.packets, 0) - packets0;
        for (const p of peers) {
          rtc.unmatched += p.unmatched;
          rtc.checked += p.checked;
          rtc.reanchored += p.reanchored;
          if (p.error) rtc.errors.push(p.error);
          p.close();
        }
        const lat = stats.latencies.sort((a, b) => a - b);
        const rlat = rtc.latencies.sort((a, b) => a - b);
        const errors =
          [
            stats.errors ? `HLS ${stats.errors} (${stats.firstError})` : '',
            rtc.errors.length ? `WebRTC ${rtc.errors.length} (${rtc.errors[0]})` : '',
          ]
            .filter(Boolean)
            .join('; ') || '0';
        rows.push(
          `| ${n} | ${cpu.toFixed(1)} | ${(cpu / n).toFixed(2)} | ${Math.max(...rss).toFixed(0)} | ${pct(lat, 50).toFixed(0)} / ${pct(lat, 95).toFixed(0)} | ${WEBRTC ? `${pct(rlat, 50).toFixed(0)} / ${pct(rlat, 95).toFixed(0)}` : '–'} | ${(packets / SECONDS).toFixed(0)} | ${((stats.requests - requests0) / SECONDS).toFixed(0)} | ${stats.parts} | ${rlat.length} (${rtc.unmatched} untold; ${rtc.checked} keyframes checked, ${rtc.reanchored} off) | ${errors} |`,
        );
        console.log(`# ${n} camera(s) done`);
      } finally {
        await stop(server.proc);
        await stop(zmcs.proc);
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await db.stop();
  }
  console.log(
    `\nLive view through the service, per camera 1 LL-HLS viewer${WEBRTC ? ' + 1 WebRTC viewer' : ''}: ${CLIP.width}x${CLIP.height} H.264 ${CLIP.fps} fps ~${CLIP.bitrate}bit/s, part 200 ms, segment 1 s; ${SECONDS} s measured after ${WARMUP_MS / 1000} s warm-up; ` +
      `${cpus().length} CPUs (${cpus()[0]?.model}; a shared VM: the zmcs and the viewers run on the same cores), load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  console.log(
    '| cameras | service CPU % (one core) | CPU % per camera | service RSS MB | LL-HLS latency p50 / p95 ms | WebRTC latency p50 / p95 ms | RTP packets/s (video, all viewers) | HTTP req/s | parts received | WebRTC frames timed | errors |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

await main();
