// Debian Chromium plays the remuxed recordings to the end, as v3 clients do (docs/contract/clients.md):
// `<video src=".../stream/video.mp4?token=…">` of a plain MP4 (remuxed to fragmented MP4, byte
// ranges), and the HLS playlist with hls.js 1.7.4 (Bearer header via xhrSetup). The page comes
// from the test's own static server on another 127.0.0.1 port, an allowed CORS origin by default.
// A recording zmc tagged with a rotation is shown turned through the remux as it is directly.
import test from 'ava';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { insertEventUsers, login } from '../helpers/events.js';
import { insertMediaEvent, makeStorages, type MediaEvent } from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

const HLS_JS = path.join(
  path.dirname(createRequire(import.meta.url).resolve('hls.js/package.json')),
  'dist',
  'hls.min.js',
);

let app: TestApp;
let browser: Browser;
let token: string;
let pages: http.Server;
let pageUrl: string;
const ev: Record<string, MediaEvent> = {};

test.before(async () => {
  const db = await zmDatabase('pbremuxbrowser');
  await insertEventUsers(db);
  const roots = await makeStorages(db, 'pbremuxbrowser');
  ev.plain = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  ev.bframes = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264-bf-aac.mp4' } },
  });
  ev.rotated = await insertMediaEvent(db, roots, {
    orientation: 'ROTATE_90',
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264-rotate90.mp4' } },
  });
  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
  });
  token = await login(app, 'evview');
  const script = readFileSync(HLS_JS);
  pages = http.createServer((req, res) => {
    if (req.url === '/hls.min.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>player</title><script src="/hls.min.js"></script>');
    }
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/`;
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await new Promise((resolve) => (pages ? pages.close(resolve) : resolve(undefined)));
});

interface Played {
  currentTime: number;
  duration: number;
  ended: boolean;
  width: number;
  error: string | null;
  timedOut: boolean;
}

/** Plays the <video id="v"> (after `setup`, a script string) until 'ended'; at `rate` × speed. */
function untilEnded(page: Page, setup: string, rate: number): Promise<Played> {
  // A string, not a function: tsx would wrap named functions in a helper the page does not have.
  return page.evaluate(`new Promise((resolve) => {
    const v = document.getElementById('v');
    const done = (timedOut, error) =>
      resolve({ currentTime: v.currentTime, duration: v.duration, ended: v.ended, width: v.videoWidth, error: error || (v.error ? 'media error ' + v.error.code : null), timedOut: !!timedOut });
    v.addEventListener('ended', () => done());
    v.addEventListener('error', () => done());
    v.addEventListener('loadedmetadata', () => { v.playbackRate = ${rate}; });
    setTimeout(() => done(true), 40000);
    ${setup}
    v.play().catch(() => undefined);
  })`) as Promise<Played>;
}

test('<video src="/stream/video.mp4?token=…"> plays a remuxed plain MP4 to the end, fetching it with byte ranges', async (t) => {
  const page = await browser.newPage();
  const statuses: number[] = [];
  page.on('response', (r) => r.url().includes('/stream/video.mp4') && statuses.push(r.status()));
  try {
    await page.goto(pageUrl);
    await page.setContent(
      `<video id="v" muted playsinline preload="auto" src="${app.api(`/events/${ev.plain.id}/stream/video.mp4?token=${token}`)}"></video>`,
    );
    const played = await untilEnded(page, '', 1);
    t.is(played.error, null);
    t.false(played.timedOut, JSON.stringify(played));
    t.true(played.ended, JSON.stringify(played));
    t.true(Math.abs(played.duration - 3) < 0.2, JSON.stringify(played));
    t.true(played.currentTime > 2.8, JSON.stringify(played));
    t.is(played.width, 640);
    t.true(statuses.includes(206), `statuses ${statuses.join(',')}`);
  } finally {
    await page.close();
  }
});

test('hls.js plays the VOD playlist (B-frames + AAC, three segments) to the end with the Bearer header', async (t) => {
  const page = await browser.newPage();
  const segments = new Set<string>();
  page.on('response', (r) => {
    const m = /\/stream\/(segment\/\d+|init\.mp4)/.exec(r.url());
    if (m && r.status() === 200) segments.add(m[1]);
  });
  try {
    await page.goto(pageUrl);
    await page.evaluate(`document.body.innerHTML = '<video id="v" muted playsinline></video>'`);
    const src = app.api(`/events/${ev.bframes.id}/stream/playlist.m3u8`);
    const setup = `
      if (!Hls.isSupported()) { done(false, 'hls.js not supported'); return; }
      const hls = new Hls({ xhrSetup: (xhr) => xhr.setRequestHeader('Authorization', 'Bearer ${token}') });
      hls.on(Hls.Events.ERROR, (_e, data) => { if (data.fatal) done(false, 'hls fatal ' + data.details); });
      hls.loadSource('${src}');
      hls.attachMedia(v);`;
    const played = await untilEnded(page, setup, 2);
    t.is(played.error, null, JSON.stringify(played));
    t.false(played.timedOut, JSON.stringify(played));
    t.true(played.ended, JSON.stringify(played));
    t.true(Math.abs(played.duration - 9) < 0.3, JSON.stringify(played));
    t.true(played.currentTime > 8.7, JSON.stringify(played));
    t.is(played.width, 320);
    t.deepEqual([...segments].sort(), ['init.mp4', 'segment/0', 'segment/1', 'segment/2']);
  } finally {
    await page.close();
  }
});

test("a rotated recording (zmc's Orientation ROTATE_90) is turned by Chromium the same way as the recording itself: 640x360 coded, shown 360x640", async (t) => {
  const page = await browser.newPage();
  try {
    await page.goto(pageUrl);
    const shown: Array<{ width: number; height: number } | string> = [];
    for (const route of [`/events/${ev.rotated.id}/video`, `/events/${ev.rotated.id}/stream/video.mp4`]) {
      await page.setContent(
        `<video id="v" muted playsinline preload="metadata" src="${app.api(`${route}?token=${token}`)}"></video>`,
      );
      shown.push(
        (await page.evaluate(`new Promise((resolve) => {
          const v = document.getElementById('v');
          const done = () => resolve(v.error ? 'media error ' + v.error.code : { width: v.videoWidth, height: v.videoHeight });
          if (v.readyState >= 1) done();
          v.addEventListener('loadedmetadata', done);
          v.addEventListener('error', done);
          setTimeout(() => resolve('timed out'), 20000);
        })`)) as { width: number; height: number } | string,
      );
    }
    t.deepEqual(shown, [
      { width: 360, height: 640 },
      { width: 360, height: 640 },
    ]);
  } finally {
    await page.close();
  }
});
