// An H.265 monitor over live HLS: the master playlist's CODECS says hvc1 (not the reference's
// bogus avc1), /live/sources says H265, and init + segment decode with ffprobe/ffmpeg.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { type LiveFixture, liveFixture, playlistParts, seedLive, startLiveApp } from '../helpers/live.js';
import { probeFile } from '../helpers/media.js';
import { login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { TestApp } from '../helpers/app.js';

let app: TestApp;
let fx: LiveFixture;

test.before(async () => {
  const db = await zmDatabase('live_hevc');
  await seedLive(db, 2);
  fx = await liveFixture([1], [], { video: 'h265', width: 320, height: 180, fps: 25, seconds: 20 });
  app = await startLiveApp(db, fx);
});

test.after.always(async () => {
  await app?.close();
  await fx?.close();
});

test('HEVC: CODECS hvc1 in the master playlist, H265 in /live/sources, ffprobe-readable init + segment', async (t) => {
  const token = await login(app, 'viewer');
  const h = { authorization: `Bearer ${token}` };
  t.is(
    (
      await fetch(app.api('/live/1/start'), {
        method: 'POST',
        headers: { ...h, 'content-type': 'application/json' },
        body: '{}',
      })
    ).status,
    200,
  );
  let text = '';
  for (let i = 0; i < 100 && playlistParts(text).segments.length < 1; i++) {
    text = await (await fetch(app.api('/live/1/hls/live.m3u8'), { headers: h })).text();
    await new Promise((r) => setTimeout(r, 100));
  }
  t.true(playlistParts(text).segments.length >= 1, text);
  const master = await (await fetch(app.api('/live/1/hls/master.m3u8'), { headers: h })).text();
  t.regex(master, /CODECS="hvc1\.[^"]+"/);
  t.notRegex(master, /avc1/);
  t.regex(master, /RESOLUTION=320x180/);

  const sources = await (await fetch(app.api('/live/sources'), { headers: h })).json();
  t.like(
    sources.sources.find((s: any) => s.monitor_id === 1),
    { codec: 'H265', active: true },
  );

  const init = Buffer.from(await (await fetch(app.api('/live/1/hls/init.mp4'), { headers: h })).arrayBuffer());
  t.true(init.includes(Buffer.from('hvc1')) && init.includes(Buffer.from('hvcC')), 'hvc1 sample entry with hvcC');
  const seg = Buffer.from(await (await fetch(app.api('/live/1/hls/segment_00000.m4s'), { headers: h })).arrayBuffer());
  const dir = mkdtempSync(join(tmpdir(), 'live_hevc_'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'seg.mp4'), Buffer.concat([init, seg]));
  const probe = await probeFile(join(dir, 'seg.mp4'));
  t.is(probe.errors, '');
  t.is(probe.codec, 'hevc');
  t.is(probe.width, 320);
  t.true(probe.frames >= 25, `${probe.frames} frames`);
});
