// Debian Chromium plays recorded events the way v3 clients do: <video src=".../video?token=…">
// (a plain MP4 with its moov at the end, so the player must use byte ranges), the fragmented
// /stream/video.mp4 with a seek, and a JPEG-only event's MJPEG stream in an <img>.
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { insertEventUsers, login } from '../helpers/events.js';
import { captures, insertMediaEvent, makeStorages, type MediaEvent } from '../helpers/playback.js';
import { zmDatabase } from '../helpers/zmdb.js';

let app: TestApp;
let browser: Browser;
let token: string;
const ev: Record<string, MediaEvent> = {};

test.before(async () => {
  const db = await zmDatabase('pbbrowser');
  await insertEventUsers(db);
  const roots = await makeStorages(db, 'pbbrowser');
  ev.plain = await insertMediaEvent(db, roots, {
    defaultVideo: '{id}-video.mp4',
    files: { '{id}-video.mp4': { fixture: 'h264.mp4' } },
  });
  ev.frag = await insertMediaEvent(db, roots, {
    scheme: 'Deep',
    defaultVideo: '{id}-video.h264.mp4',
    files: { '{id}-video.h264.mp4': { fixture: 'h264-frag.mp4' } },
  });
  ev.jpeg = await insertMediaEvent(db, roots, {
    files: captures([1, 2, 3, 4, 5, 6]),
    frameRows: [
      [1, 0],
      [6, 1],
    ],
  });
  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_ZONEMINDER__DIR_EVENTS: roots.defaultDir },
  });
  token = await login(app, 'evview');
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

interface Played {
  currentTime: number;
  ended: boolean;
  width: number;
  error: number | null;
  timedOut: boolean;
}

/** Loads `src` in a muted autoplaying <video>; resolves once it played past `seconds` (or failed). */
async function play(page: Page, src: string, seconds: number, seekTo?: number): Promise<Played> {
  await page.setContent(`<video id="v" muted autoplay playsinline preload="auto" src="${src}"></video>`);
  // A string, not a function: tsx would wrap named functions in a helper the page does not have.
  return page.evaluate(`new Promise((resolve) => {
    const v = document.getElementById('v');
    const seekTo = ${seekTo === undefined ? 'undefined' : seekTo};
    const done = (timedOut) =>
      resolve({ currentTime: v.currentTime, ended: v.ended, width: v.videoWidth, error: v.error ? v.error.code : null, timedOut: !!timedOut });
    let seeked = seekTo === undefined;
    v.addEventListener('loadedmetadata', () => { if (seekTo !== undefined) v.currentTime = seekTo; });
    v.addEventListener('seeked', () => { seeked = true; });
    v.addEventListener('timeupdate', () => { if (seeked && (v.currentTime > ${seconds} || v.ended)) done(); });
    v.addEventListener('ended', () => done());
    v.addEventListener('error', () => done());
    setTimeout(() => done(true), 20000);
    if (v.error) done(); // failed before the listeners were attached
    v.play().catch(() => undefined);
  })`) as Promise<Played>;
}

test('<video src="/events/{id}/video?token=…"> plays a plain MP4 past 1 s, using byte ranges', async (t) => {
  const page = await browser.newPage();
  const statuses: number[] = [];
  page.on('response', (r) => r.url().includes('/video?') && statuses.push(r.status()));
  try {
    const played = await play(page, app.api(`/events/${ev.plain.id}/video?token=${token}`), 1);
    t.is(played.error, null);
    t.false(played.timedOut, JSON.stringify(played));
    t.true(played.currentTime > 1 || played.ended, JSON.stringify(played));
    t.is(played.width, 640);
    t.true(statuses.includes(206), `statuses ${statuses.join(',')}`);
  } finally {
    await page.close();
  }
});

test('the fragmented /stream/video.mp4 plays after a seek to 1.5 s', async (t) => {
  const page = await browser.newPage();
  try {
    const played = await play(page, app.api(`/events/${ev.frag.id}/stream/video.mp4?token=${token}`), 1.8, 1.5);
    t.is(played.error, null);
    t.false(played.timedOut, JSON.stringify(played));
    t.true(played.currentTime > 1.8 || played.ended, JSON.stringify(played));
  } finally {
    await page.close();
  }
});

test('without a valid token the player gets nothing to play', async (t) => {
  const page = await browser.newPage();
  try {
    const played = await play(page, app.api(`/events/${ev.plain.id}/video?token=invalid`), 1);
    t.not(played.error, null);
    t.false(played.timedOut);
  } finally {
    await page.close();
  }
});

test('a JPEG-only event plays as MJPEG in an <img>', async (t) => {
  const page = await browser.newPage();
  try {
    await page.setContent(`<img id="i" src="${app.api(`/events/${ev.jpeg.id}/stream/mjpeg?token=${token}`)}">`);
    const width = await page.waitForFunction("document.getElementById('i').naturalWidth", undefined, {
      timeout: 15_000,
    });
    t.is(await width.jsonValue(), 352);
  } finally {
    await page.close();
  }
});
