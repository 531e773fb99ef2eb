// Debian Chromium views live video through the signalling WebSocket of the real server (live
// hub, startServer's listener), as the reference client does: the peer reaches `connected` and decodes H.264 frames; after the fake zmc restarts the
// same peer goes on decoding; PCMU audio arrives as an audio track (has_audio true), an AAC
// monitor is video only (has_audio false). And Chromium set up exactly as the reference client
// (Google STUN servers unreachable offline, toJSON() candidates with the null end-of-candidates,
// mDNS host candidates as a real browser sends them) connects and decodes as well.
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { FakeZmc } from '../helpers/fake-zmc.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { liveEnv, liveFixture, seedLive, type LiveFixture } from '../helpers/live.js';
import { mediaClip } from '../helpers/media.js';
import { login } from '../helpers/rest.js';
import { REAL_CLIENT, WEBRTC_CLIENT_JS } from '../helpers/webrtc-page.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let browser: Browser;
let token: string;
let fixture: LiveFixture;
let aacZmc: FakeZmc;

interface PageStats {
  state: string;
  framesDecoded: number;
  videoPackets: number;
  audioPackets: number;
  width: number;
  codec: string;
  fmtp: string;
}

test.before(async () => {
  const db = await zmDatabase('webrtc_e2e');
  await seedLive(db, 2);
  fixture = await liveFixture([1], [], { video: 'h264-baseline', audio: 'pcmu', seconds: 20, width: 320, height: 180 });
  const aac = await mediaClip({ video: 'h264-high', audio: 'aac', seconds: 6, width: 320, height: 180 });
  aacZmc = await FakeZmc.start({ clip: aac, monitorId: 2, dir: fixture.sockDir, pace: 'realtime' });
  app = await startTestApp({ db, env: liveEnv(fixture) });
  token = await login(app, 'viewer');
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await aacZmc?.close();
  await fixture?.close();
});

async function openView(monitorId: number, options: object = {}, on: Browser = browser): Promise<Page> {
  const page = await on.newPage();
  await page.setContent('<!doctype html><body></body>');
  await page.addScriptTag({ content: WEBRTC_CLIENT_JS });
  const url = `${app.url.replace(/^http/, 'ws')}/api/v3/live/${monitorId}/webrtc/ws?token=${token}`;
  await page.evaluate(`window.view = window.zmRtc(${JSON.stringify(url)}, ${JSON.stringify(options)})`);
  return page;
}

const stats = (page: Page) => page.evaluate('window.view.stats()') as Promise<PageStats>;
const view = <T>(page: Page, expr: string) => page.evaluate(`window.view.${expr}`) as Promise<T>;

async function until(page: Page, check: (s: PageStats) => boolean, ms: number, what: string): Promise<PageStats> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await stats(page);
    if (check(s)) return s;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}: ${JSON.stringify(s)}; messages ${JSON.stringify(await view(page, 'messages'))}; errors ${JSON.stringify(await view(page, 'errors'))}`,
      );
    await sleep(200);
  }
}

test.serial('Chromium connects, decodes H.264 and PCMU, and keeps decoding after zmc restarts', async (t) => {
  const page = await openView(1);
  t.teardown(() => page.close());
  const first = await until(
    page,
    (s) => s.state === 'connected' && s.framesDecoded > 0,
    15_000,
    'connected + framesDecoded > 0',
  );
  t.is(first.state, 'connected');
  t.true(first.framesDecoded > 0);
  t.is(first.codec, 'video/H264');
  t.regex(first.fmtp, /profile-level-id=42e01f/, 'a baseline camera goes out as PT 96 (42e01f)');
  t.is(first.width, 320);
  const ready = await view<{ has_audio: boolean; monitor_id: number }>(page, 'ready');
  t.like(ready, { has_audio: true, monitor_id: 1 });
  t.deepEqual((await view<string[]>(page, 'messages')).slice(0, 1), ['offer']);
  t.deepEqual([...new Set(await view<string[]>(page, 'streamIds'))], ['zm-live-1']);
  t.deepEqual((await view<string[]>(page, 'trackKinds')).sort(), ['audio', 'video']);
  await until(page, (s) => s.audioPackets > 20, 5000, 'PCMU packets');

  // zmc restarts: its socket disappears and comes back; the clip (and its clock) starts over.
  const before = await until(page, (s) => s.framesDecoded > 30, 10_000, '30 frames');
  await fixture.restart(1);
  const after = await until(
    page,
    (s) => s.framesDecoded > before.framesDecoded + 45,
    15_000,
    'decoding after the restart',
  );
  t.is(after.state, 'connected', 'the same peer connection');
  t.true(after.framesDecoded > before.framesDecoded + 45);
  t.deepEqual(await view<string[]>(page, 'errors'), []);
  t.true((await view<number>(page, 'pongs')) >= 1, 'ping → pong');
  t.is(await view<number | null>(page, 'closed'), null);
});

test.serial('an AAC monitor is video only: has_audio false, one video track, frames decoded', async (t) => {
  const page = await openView(2);
  t.teardown(() => page.close());
  const s = await until(
    page,
    (x) => x.state === 'connected' && x.framesDecoded > 0,
    15_000,
    'connected + framesDecoded > 0',
  );
  t.true(s.framesDecoded > 0);
  // Chromium answers with one H.264 entry (42e01f); the high-profile bitstream decodes all the same.
  t.is(s.codec, 'video/H264');
  t.like(await view<{ has_audio: boolean }>(page, 'ready'), { has_audio: false, monitor_id: 2 });
  t.deepEqual(await view<string[]>(page, 'trackKinds'), ['video']);
  t.is(s.audioPackets, 0);
});

test.serial(
  'as the reference client: Google STUN (offline), toJSON() trickle, null end-of-candidates, mDNS host candidates',
  async (t) => {
    const real = await launchChromium({ mdnsCandidates: true });
    t.teardown(() => real.close());
    const page = await openView(1, REAL_CLIENT, real);
    // Unreachable STUN only delays Chromium's own gathering; connecting does not wait for it.
    const s = await until(
      page,
      (x) => x.state === 'connected' && x.framesDecoded > 0,
      20_000,
      'connected + framesDecoded > 0',
    );
    t.true(s.framesDecoded > 0);
    t.is(s.codec, 'video/H264');
    t.like(await view<{ has_audio: boolean }>(page, 'ready'), { has_audio: true, monitor_id: 1 });
    t.deepEqual([...new Set(await view<string[]>(page, 'streamIds'))], ['zm-live-1']);
    t.deepEqual(await view<string[]>(page, 'errors'), []);
    const sent = await view<Array<string | null>>(page, 'sentCandidates');
    t.true(
      sent.some((c) => typeof c === 'string' && /\.local /.test(c)),
      `mDNS host candidates were sent: ${JSON.stringify(sent)}`,
    );
    // Gathering ends (the STUN servers time out) with the null end-of-candidates; the session survives it.
    const deadline = Date.now() + 20_000;
    while (!(await view<Array<string | null>>(page, 'sentCandidates')).includes(null) && Date.now() < deadline)
      await sleep(250);
    t.true(
      (await view<Array<string | null>>(page, 'sentCandidates')).includes(null),
      'the null end-of-candidates was sent',
    );
    const later = await until(
      page,
      (x) => x.framesDecoded > s.framesDecoded + 10,
      10_000,
      'decoding after end-of-candidates',
    );
    t.is(later.state, 'connected');
    t.deepEqual(await view<string[]>(page, 'errors'), []);
    t.is(await view<number | null>(page, 'closed'), null);
  },
);
