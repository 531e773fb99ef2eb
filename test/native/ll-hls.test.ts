// LL-HLS from the fake zmc: StreamClient batches → LlHlsPackager. Checks the rendered playlists
// (parts per segment, durations, INDEPENDENT against the bytes, preload hint, server control,
// query suffix on every URI, master CODECS/RESOLUTION/FRAME-RATE), blocking reloads, a generation
// bump, and ffmpeg playing the playlist from a small HTTP server that insists on the token.

import { execFile, spawnSync } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

import test, { type ExecutionContext } from 'ava';

import { type EventRecord, LlHlsPackager, PACKAGE_ROOT, StreamClient, describeCodec } from '../../src/native/index.js';
import { EVENT, FakeZmc, type FakeZmcOptions } from '../helpers/fake-zmc.js';
import { mediaClip } from '../helpers/media.js';
import { TIME_SCALE } from '../helpers/time-scale.js';

const run = promisify(execFile);

interface Setup {
  zmc: FakeZmc;
  client: StreamClient;
  packager: LlHlsPackager;
}

async function live(t: ExecutionContext, options: FakeZmcOptions, packager = new LlHlsPackager()): Promise<Setup> {
  const zmc = await FakeZmc.start(options);
  const client = new StreamClient({ path: zmc.path, reconnect: { initialDelayMs: 50, maxDelayMs: 400 } });
  packager.attach(client); // fed on the reader thread: no media listener in JS, so none crosses
  t.teardown(async () => {
    await client.close();
    await zmc.close();
  });
  return { zmc, client, packager };
}

/**
 * Waits until the whole clip has been packaged: once the fake zmc has sent it, an EVENT follows;
 * records reach the packager's tap in order, so when that EVENT reaches JS the media before it
 * has been packaged.
 */
async function drained({ zmc, client }: Setup): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!zmc.connections[0]?.finished) {
    if (Date.now() > deadline) throw new Error('the fake zmc did not finish the clip');
    await sleep(10);
  }
  const marker = new Promise<void>((resolve) => {
    const onEvent = (e: EventRecord) => e.sequence === 4242 && (client.off('event', onEvent), resolve());
    client.on('event', onEvent);
  });
  zmc.sendEvent(EVENT.stateChanged, { stateName: 'IDLE' }, 4242); // not the snapshot sent on connect
  await marker;
}

interface ParsedPart {
  duration: number;
  uri: string;
  independent: boolean;
}
interface ParsedSegment {
  msn: number;
  parts: ParsedPart[];
  extinf?: number;
  uri?: string;
  discontinuity: boolean;
}

function parsePlaylist(text: string) {
  const lines = text.trimEnd().split('\n');
  const tag = (name: string) => lines.find((l) => l.startsWith(`#${name}:`))?.slice(name.length + 2);
  const attrs = (s: string) =>
    Object.fromEntries(s.split(/,(?=[A-Z-]+=)/).map((kv) => kv.split(/=(.*)/s).slice(0, 2) as [string, string]));
  let msn = Number(tag('EXT-X-MEDIA-SEQUENCE'));
  const segments: ParsedSegment[] = [];
  let current: ParsedSegment = { msn, parts: [], discontinuity: false };
  const uris: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l === '#EXT-X-DISCONTINUITY') current.discontinuity = true;
    if (l.startsWith('#EXT-X-MAP:')) uris.push(attrs(l.slice(11)).URI!.slice(1, -1));
    if (l.startsWith('#EXT-X-PART:')) {
      const a = attrs(l.slice(12));
      current.parts.push({
        duration: Number(a.DURATION),
        uri: a.URI!.slice(1, -1),
        independent: a.INDEPENDENT === 'YES',
      });
      uris.push(a.URI!.slice(1, -1));
    }
    if (l.startsWith('#EXTINF:')) {
      current.extinf = Number(l.slice(8).split(',')[0]);
      current.uri = lines[++i]!;
      uris.push(current.uri);
      segments.push(current);
      current = { msn: ++msn, parts: [], discontinuity: false };
    }
  }
  if (current.parts.length > 0) segments.push(current);
  const hint = tag('EXT-X-PRELOAD-HINT');
  if (hint) uris.push(attrs(hint).URI!.slice(1, -1));
  return { lines, tag, attrs, segments, uris, hint: hint ? attrs(hint) : undefined };
}

/** Whether the first video sample of a part (moof + mdat) is a sync sample, from its trun. */
function startsWithSync(part: Buffer): boolean {
  const moofEnd = part.readUInt32BE(0);
  for (let pos = 8; pos < moofEnd;) {
    const size = part.readUInt32BE(pos);
    if (part.toString('latin1', pos + 4, pos + 8) === 'traf') {
      let inner = pos + 8;
      let trackId = 0;
      while (inner < pos + size) {
        const s = part.readUInt32BE(inner);
        const type = part.toString('latin1', inner + 4, inner + 8);
        if (type === 'tfhd') trackId = part.readUInt32BE(inner + 12);
        if (type === 'trun' && trackId === 1) {
          const flags = part.readUInt32BE(inner + 8) & 0xffffff;
          let at = inner + 16 + (flags & 1 ? 4 : 0) + (flags & 4 ? 4 : 0);
          if (flags & 4) return (part.readUInt32BE(inner + 16 + (flags & 1 ? 4 : 0)) & 0x10000) === 0;
          if (flags & 0x100) at += 4;
          if (flags & 0x200) at += 4;
          return (part.readUInt32BE(at) & 0x10000) === 0;
        }
        inner += s;
      }
    }
    pos += size;
  }
  throw new Error('no video trun');
}

test('playlist from the fake zmc: parts, durations, INDEPENDENT, preload hint, server control, token on every URI', async (t) => {
  const clip = await mediaClip({ video: 'h264-high', audio: 'aac', seconds: 4 });
  const setup = await live(t, { clip, pace: 'fast' });
  const { packager } = setup;
  await drained(setup);

  const text = packager.playlist({ query: '?token=abc.DEF-1' })!;
  const p = parsePlaylist(text);
  t.is(p.lines[0], '#EXTM3U');
  t.is(p.tag('EXT-X-TARGETDURATION'), '2'); // fixed: ceil(1 s segment target) + 1 s
  t.is(p.tag('EXT-X-MEDIA-SEQUENCE'), '0');
  const partTarget = Number(p.attrs(p.tag('EXT-X-PART-INF')!)['PART-TARGET']);
  t.is(partTarget, 0.21667); // 6 frames of 30 fps + half a frame of headroom
  const control = p.attrs(p.tag('EXT-X-SERVER-CONTROL')!);
  t.is(control['CAN-BLOCK-RELOAD'], 'YES');
  t.true(Number(control['PART-HOLD-BACK']) >= 3 * partTarget - 1e-9);
  t.true(p.lines.includes('#EXT-X-INDEPENDENT-SEGMENTS'));
  t.true(p.uris.length > 20);
  for (const uri of p.uris) t.regex(uri, /^(init-\d+\.mp4|seg-\d+\.m4s|part-\d+\.\d+\.m4s)\?token=abc\.DEF-1$/);

  // 4 s of 1 s GOPs: segments 0–2 complete, 3 still open (its last frames wait for the next keyframe).
  const complete = p.segments.filter((s) => s.extinf !== undefined);
  t.is(complete.length, 3);
  for (const s of complete) {
    t.is(s.uri, `seg-${s.msn}.m4s?token=abc.DEF-1`);
    t.is(s.parts.length, 5, `segment ${s.msn}`);
    const sum = s.parts.reduce((a, x) => a + x.duration, 0);
    t.true(Math.abs(sum - s.extinf!) < 0.001, `parts ${sum} vs EXTINF ${s.extinf}`);
    t.true(Math.abs(s.extinf! - 1) < 0.001);
    for (const part of s.parts) t.true(part.duration <= partTarget + 1e-9);
    // The segment is its parts back to back.
    const parts = s.parts.map((x) => packager.get(x.uri.split('?')[0]!)!);
    t.deepEqual(packager.get(`seg-${s.msn}.m4s`), Buffer.concat(parts));
  }
  // INDEPENDENT exactly where the part's first video sample is a keyframe.
  const all = p.segments.flatMap((s) => s.parts);
  for (const part of all) t.is(part.independent, startsWithSync(packager.get(part.uri.split('?')[0]!)!), part.uri);
  t.is(all.filter((x) => x.independent).length, 4);
  const open = p.segments.at(-1)!;
  t.is(open.extinf, undefined);
  t.is(p.hint!.TYPE, 'PART');
  t.is(p.hint!.URI, `"part-${open.msn}.${open.parts.length}.m4s?token=abc.DEF-1"`);
  t.is(p.lines.at(-1)!.startsWith('#EXT-X-PRELOAD-HINT:'), true);
  t.is(packager.get(`part-${open.msn}.${open.parts.length}.m4s`), null, 'hinted, not there yet');

  const master = packager.masterPlaylist({ query: '?token=abc.DEF-1' })!;
  const video = describeCodec('h264', clip.video.extradata)!;
  t.is(packager.codecs(), `${video.codecString},mp4a.40.2`);
  const inf = master.split('\n').find((l) => l.startsWith('#EXT-X-STREAM-INF:'))!;
  t.regex(inf, new RegExp(`CODECS="${video.codecString},mp4a\\.40\\.2"`));
  t.regex(inf, /RESOLUTION=640x360/);
  t.regex(inf, /FRAME-RATE=30\.000/);
  t.regex(inf, /BANDWIDTH=\d{5,}/);
  t.true(master.includes('\nlive.m3u8?token=abc.DEF-1\n'));
  const stats = packager.stats();
  t.is(stats.state, 'live');
  t.is(stats.initId, 0);
  t.true(stats.bytes > 0);
});

test('blocking reload: waitFor resolves when the part appears and times out otherwise', async (t) => {
  const clip = await mediaClip({ video: 'h264-high', seconds: 3 });
  const setup = await live(t, { clip, pace: 'realtime' });
  const { packager } = setup;
  t.true(await packager.waitFor(0, 0, 10_000), 'the first part');
  const hint = parsePlaylist(packager.playlist()!).hint!.URI!;
  const [, msn, part] = /part-(\d+)\.(\d+)\.m4s/.exec(hint)!.map(Number);
  const t0 = Date.now();
  const fetched = packager.fetch(`part-${msn}.${part}.m4s`, 5000); // the preload hint, requested early
  t.true(await packager.waitFor(msn!, part!, 5000));
  t.true(Date.now() - t0 < 1000 * TIME_SCALE, 'within a part or so');
  t.truthy(await fetched);
  t.true(await packager.waitFor(msn! + 1, 0, 5000), 'part 0 of the next segment');
  // Relative to where the stream is now: a test thread stalled for a second (emulation under
  // load) must not turn "too far ahead" into "next segment".
  const now = Number(/part-(\d+)\./.exec(parsePlaylist(packager.playlist()!).hint!.URI!)![1]);
  t.true(packager.tooFarAhead(now + 3), `msn ${now + 3} while the preload hint is in ${now}`);
  t.false(await packager.waitFor(now + 3, 0, 5000), 'too far ahead: no wait');

  await drained(setup); // the clip is over; the connection stays open, nothing more comes
  const next = parsePlaylist(packager.playlist()!).hint!.URI!;
  const [, m2, p2] = /part-(\d+)\.(\d+)\.m4s/.exec(next)!.map(Number);
  const t1 = Date.now();
  t.false(await packager.waitFor(m2!, p2!, 300));
  t.true(Date.now() - t1 >= 250);
  t.is(await packager.fetch(`part-${m2}.${p2}.m4s`, 100), null);
  const waiting = packager.waitFor(m2!, p2!, 5000);
  t.is(packager.stats().waiting, 1);
  packager.end(); // ends the playlist: waiting requests are answered at once
  t.true(await waiting);
  t.true(packager.playlist()!.endsWith('#EXT-X-ENDLIST\n'));

  t.deepEqual(LlHlsPackager.blockingRequest(new URLSearchParams('_HLS_msn=12&_HLS_part=3')), { msn: 12, part: 3 });
  t.deepEqual(LlHlsPackager.blockingRequest(new URLSearchParams('_HLS_msn=12')), { msn: 12 });
  t.is(LlHlsPackager.blockingRequest(new URLSearchParams('token=x')), null);
  t.throws(() => LlHlsPackager.blockingRequest(new URLSearchParams('_HLS_part=1')), { instanceOf: RangeError });
  t.throws(() => LlHlsPackager.blockingRequest(new URLSearchParams('_HLS_msn=-1')), { instanceOf: RangeError });
  // Past waitFor()'s bounds: refused here (a 400), not thrown later by waitFor (a 500).
  t.throws(() => LlHlsPackager.blockingRequest(new URLSearchParams('_HLS_msn=0&_HLS_part=9999999')), {
    instanceOf: RangeError,
    message: /_HLS_part/,
  });
  t.throws(() => LlHlsPackager.blockingRequest(new URLSearchParams('_HLS_msn=9007199254740992')), {
    instanceOf: RangeError,
    message: /_HLS_msn/,
  });
  t.deepEqual(LlHlsPackager.blockingRequest(new URLSearchParams('_HLS_msn=9007199254740991&_HLS_part=1000000')), {
    msn: 9007199254740991,
    part: 1000000,
  });
});

test('a generation bump starts a new init segment after EXT-X-DISCONTINUITY', async (t) => {
  const clip = await mediaClip({ video: 'h264-high', seconds: 4 });
  const { zmc, packager } = await live(t, { clip, pace: 'realtime' });
  t.true(await packager.waitFor(1, 0, 10_000));
  zmc.bumpGeneration(); // new HELLOs; media resumes at the next keyframe
  const deadline = Date.now() + 10_000;
  while (!packager.get('init-1.mp4') && Date.now() < deadline) await sleep(20);
  t.truthy(packager.get('init-1.mp4'));
  await sleep(300);
  const text = packager.playlist()!;
  t.true(text.includes('#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI="init-1.mp4"\n'), text);
  t.is(packager.stats().discontinuities, 1);
  t.is(packager.stats().initId, 1);
});

test('ffmpeg plays the rendered playlists from an HTTP server that checks the token', async (t) => {
  const clip = await mediaClip({ video: 'h264-high-bframes', audio: 'aac', seconds: 4 });
  const setup = await live(t, { clip, pace: 'fast' });
  const { packager } = setup;
  await drained(setup);
  packager.end(); // EXT-X-ENDLIST, so ffmpeg reads the window and stops

  const requests: string[] = [];
  let refused = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url!, 'http://x');
      requests.push(url.pathname);
      if (url.searchParams.get('token') !== 'abc') {
        refused++;
        res.writeHead(401).end();
        return;
      }
      const q = '?token=abc';
      const name = url.pathname.slice(1);
      if (name === 'master.m3u8' || name === 'live.m3u8') {
        const blocking = LlHlsPackager.blockingRequest(url.searchParams);
        if (blocking) await packager.waitFor(blocking.msn, blocking.part, 3000);
        const body = name === 'master.m3u8' ? packager.masterPlaylist({ query: q }) : packager.playlist({ query: q });
        res.writeHead(body ? 200 : 404, { 'content-type': 'application/vnd.apple.mpegurl' }).end(body ?? '');
        return;
      }
      const bytes = await packager.fetch(name, 3000);
      if (!bytes) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': name.endsWith('.mp4') ? 'video/mp4' : 'video/iso.segment' }).end(bytes);
    })();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/master.m3u8?token=abc`;

  const { stderr } = await run('ffmpeg', ['-v', 'error', '-i', url, '-f', 'null', '-'], { timeout: 60_000 });
  t.is(stderr.trim(), '', 'ffmpeg decodes without errors');
  const { stdout } = await run(
    'ffprobe',
    [
      '-v',
      'error',
      '-count_frames',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=nb_read_frames,width,height',
      '-of',
      'json',
      url,
    ],
    { timeout: 60_000 },
  );
  const stream = (JSON.parse(stdout) as { streams: Array<{ nb_read_frames: string; width: number; height: number }> })
    .streams[0]!;
  t.is(Number(stream.nb_read_frames), clip.video.frames.length, 'every frame of the 4 segments');
  t.is(stream.width, 640);
  t.is(refused, 0, 'every URI carried the token');
  t.true(requests.includes('/init-0.mp4'));
  t.true(requests.some((r) => /^\/seg-\d+\.m4s$/.test(r)));
});

test('push() feeds records from JS the way attach() does natively', async (t) => {
  const clip = await mediaClip({ video: 'h264-high', audio: 'aac', seconds: 4 });
  const setup = await live(t, { clip, pace: 'fast' });
  await drained(setup);
  const manual = new LlHlsPackager();
  const codec = (stream: 'video' | 'audio', c: typeof clip.video) => ({
    type: 'codec' as const,
    stream,
    generation: 1,
    inBand: false,
    codec: { ...describeCodec(c.codec as 'h264' | 'aac', c.extradata)!, codecId: c.codecId, extradata: c.extradata },
  });
  manual.pushRecords([{ type: 'connected', attempt: 1 }, codec('video', clip.video), codec('audio', clip.audio!)]);
  const items = [
    ...clip.video.frames.map((f) => ({ stream: 'video' as const, f })),
    ...clip.audio!.frames.map((f) => ({ stream: 'audio' as const, f })),
  ].sort((a, b) => a.f.dtsUs - b.f.dtsUs || (a.stream === 'video' ? -1 : 1));
  let seq = 0;
  for (const { stream, f } of items) {
    manual.push({
      type: 'media',
      stream,
      sequence: seq++,
      generation: 1,
      ptsUs: setup.zmc.pts(f.ptsUs),
      keyframe: f.keyframe && stream === 'video',
      cached: false,
      gap: 0,
      data: f.data,
    });
  }
  t.is(manual.playlist(), setup.packager.playlist());
  t.deepEqual(manual.get('seg-1.m4s'), setup.packager.get('seg-1.m4s'));
  t.is(manual.codecs(), setup.packager.codecs());
});

test('a packager attached to a client, both dropped without close(), lets the process exit', (t) => {
  // Closures the native side holds must not keep either object alive (see ll-hls.ts/stream-client.ts).
  const facade = pathToFileURL(join(PACKAGE_ROOT, 'src', 'native', 'index.ts')).href;
  const child = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `
    const { StreamClient, LlHlsPackager } = await import(${JSON.stringify(facade)});
    (() => { const c = new StreamClient({ path: '/nonexistent/stream_1.sock', reconnect: { initialDelayMs: 10 } }); new LlHlsPackager().attach(c); })();
    for (let i = 0; i < 2; i++) { await new Promise((r) => setTimeout(r, 50)); globalThis.gc(); }
    console.log('dropped');
  `,
    ],
    { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 30_000 },
  );
  t.is(child.error, undefined, 'exited on its own (no timeout)');
  t.is(child.status, 0, child.stderr);
  t.regex(child.stdout, /dropped/);
});

test('options and names are validated', (t) => {
  t.throws(() => new LlHlsPackager({ partTargetMs: 5 }), { instanceOf: RangeError });
  t.throws(() => new LlHlsPackager({ partTargetMs: 500, segmentTargetMs: 400 }), { instanceOf: RangeError });
  t.throws(() => new LlHlsPackager({ windowSegment: 3 } as never), {
    instanceOf: TypeError,
    message: /unknown option "windowSegment"/,
  });
  const p = new LlHlsPackager();
  t.is(p.playlist(), null);
  t.is(p.masterPlaylist(), null);
  t.is(p.stats().state, 'waiting');
  t.throws(() => p.playlist({ query: '?a="b"' }), { instanceOf: TypeError });
  t.throws(() => p.playlist({ query: 'token=x' }), { instanceOf: TypeError });
  t.throws(() => p.masterPlaylist({ mediaUri: 'a b' }), { instanceOf: TypeError });
  for (const bad of ['../init-0.mp4', 'seg-01.m4s', 'init-0.mp4?x', 'part-1.m4s']) t.is(p.get(bad), null);
  t.throws(() => p.waitFor(-1), { instanceOf: RangeError });
  t.throws(() => p.waitFor(0, 0, 120_000), { instanceOf: RangeError });
});
