// Debian Chromium plays live LL-HLS with hls.js the way the v3 browser client does (POST /start,
// master.m3u8 with the Bearer header through xhrSetup, lowLatencyMode), from a fake zmc serving
// real H.264: the video's currentTime advances, the distance behind live is logged, and
// playback goes on after the fake zmc restarts (discontinuity + new init segment).
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { type LiveFixture, liveFixture, seedLive, startLiveApp } from '../helpers/live.js';
import { login } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';

const HLS_JS = new URL('../../node_modules/hls.js/dist/hls.min.js', import.meta.url).pathname;

let app: TestApp;
let fx: LiveFixture;
let browser: Browser;
let token: string;

test.before(async () => {
  const db = await zmDatabase('live_browser');
  await seedLive(db, 2);
  fx = await liveFixture([1, 2]);
  app = await startLiveApp(db, fx);
  token = await login(app, 'viewer');
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
  await fx?.close();
});

interface PlayerState {
  currentTime: number;
  /** hls.js's estimate of the distance behind the live edge, in seconds. */
  latency: number | null;
  width: number;
  fatal: string | null;
  errors: string[];
}

/**
 * A page on the app's origin (served by the test, so the API's CSP does not apply) with hls.js
 * playing `/live/{id}/hls/master.m3u8`; `config` is the hls.js configuration (JSON).
 */
async function openPlayer(id: number, config: Record<string, unknown>): Promise<Page> {
  const page = await browser.newPage();
  const pageUrl = `${app.url}/__live_test__/player.html`;
  await page.route(pageUrl, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html',
      body: '<!doctype html><video id="v" muted autoplay playsinline></video>',
    }),
  );
  await page.goto(pageUrl);
  await page.addScriptTag({ path: HLS_JS });
  // A string, not a function: tsx would wrap named functions in a helper the page does not have.
  await page.evaluate(`(() => {
    const v = document.getElementById('v');
    const state = { fatal: null, errors: [] };
    window.__state = state;
    const hls = new Hls(Object.assign(${JSON.stringify(config)}, {
      xhrSetup: (xhr) => xhr.setRequestHeader('Authorization', 'Bearer ' + ${JSON.stringify(token)}),
    }));
    window.__hls = hls;
    // The client's recovery: restart loading on network errors, recoverMediaError on media errors.
    hls.on(Hls.Events.ERROR, (_e, data) => {
      state.errors.push(data.type + ':' + data.details + (data.fatal ? ':fatal' : ''));
      if (!data.fatal) return;
      if (data.type === Hls.ErrorTypes.NETWORK_ERROR) hls.startLoad();
      else if (data.type === Hls.ErrorTypes.MEDIA_ERROR) hls.recoverMediaError();
      else state.fatal = data.details;
    });
    hls.loadSource(${JSON.stringify(app.api(`/live/${id}/hls/master.m3u8`))});
    hls.attachMedia(v);
    v.play().catch(() => undefined);
  })()`);
  return page;
}

function state(page: Page): Promise<PlayerState> {
  return page.evaluate(`(() => {
    const v = document.getElementById('v');
    const hls = window.__hls;
    return { currentTime: v.currentTime, latency: Number.isFinite(hls.latency) ? hls.latency : null, width: v.videoWidth, fatal: window.__state.fatal, errors: window.__state.errors.slice() };
  })()`) as Promise<PlayerState>;
}

/** Polls the player until `cond` holds (or fails after `timeoutMs` with the last state). */
async function until(
  page: Page,
  what: string,
  cond: (s: PlayerState) => boolean,
  timeoutMs = 25_000,
): Promise<PlayerState> {
  const deadline = Date.now() + timeoutMs;
  let s = await state(page);
  while (!cond(s)) {
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(s)}`);
    await sleep(200);
    s = await state(page);
  }
  return s;
}

async function start(id: number): Promise<void> {
  const res = await fetch(app.api(`/live/${id}/start`), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ enable_hls: true }),
  });
  if (res.status !== 200 && res.status !== 409) throw new Error(`start: ${res.status}`);
}

test.serial('hls.js (the v3 client configuration) plays live LL-HLS and recovers after zmc restarts', async (t) => {
  await start(1);
  const page = await openPlayer(1, {
    enableWorker: true,
    lowLatencyMode: true,
    liveSyncDuration: 3,
    liveMaxLatencyDuration: 10,
    liveDurationInfinity: true,
    backBufferLength: 30,
    levelLoadingMaxRetry: 10,
    levelLoadingRetryDelay: 1000,
  });
  const requests: string[] = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  try {
    const playing = await until(page, 'playing', (s) => s.currentTime > 2);
    t.is(playing.fatal, null);
    t.is(playing.width, 320);
    const later = await until(page, 'advancing', (s) => s.currentTime > playing.currentTime + 2);
    t.log(
      `v3 client config (liveSyncDuration 3): ${later.latency?.toFixed(2)} s behind live at currentTime ${later.currentTime.toFixed(2)}`,
    );
    t.true(
      requests.some((p) => /\/segment_\d+\.\d+\.m4s$/.test(p)),
      'hls.js loads partial segments',
    );

    await fx.restart(1);
    const restartedAt = (await state(page)).currentTime;
    const recovered = await until(page, 'playing after the restart', (s) => s.currentTime > restartedAt + 4, 40_000);
    t.is(recovered.fatal, null, recovered.errors.join(' '));
    t.true(
      requests.some((p) => p.endsWith('/hls/init-1.mp4')),
      'the new init segment after the discontinuity was loaded',
    );
    t.log(
      `after the restart: ${recovered.latency?.toFixed(2)} s behind live; hls.js errors on the way: ${recovered.errors.join(', ') || 'none'}`,
    );
  } finally {
    await page.close();
  }
});

test.serial('hls.js with its low-latency defaults plays close to the live edge', async (t) => {
  await start(2);
  const page = await openPlayer(2, { lowLatencyMode: true });
  try {
    const first = await until(page, 'playing', (s) => s.currentTime > 1);
    const s = await until(page, 'advancing', (x) => x.currentTime > first.currentTime + 3);
    t.is(s.fatal, null);
    t.truthy(s.latency !== null);
    t.log(`LL-HLS defaults (PART-HOLD-BACK): ${s.latency!.toFixed(2)} s behind live`);
  } finally {
    await page.close();
  }
});
