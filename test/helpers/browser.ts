// Debian's Chromium driven by playwright-core (no browser download). Flags keep Chromium from
// reaching for the network at start.
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface ChromiumOptions {
  /**
   * Keep Chromium's default of hiding local addresses behind mDNS `.local` host candidates in
   * WebRTC (what a real browser sends); off by default so that tests get plain IP candidates.
   */
  mdnsCandidates?: boolean;
}

export function launchChromium(options: ChromiumOptions = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--allow-loopback-in-peer-connection',
      ...(options.mdnsCandidates ? [] : ['--disable-features=WebRtcHideLocalIpsWithMdns']),
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

/** What hlsPlayToEnd saw when the video ended, failed or timed out. */
export interface HlsPlayed {
  currentTime: number;
  duration: number;
  ended: boolean;
  width: number;
  height: number;
  error: string | null;
  timedOut: boolean;
}

/**
 * Plays `playlistUrl` with hls.js (the npm package's dist build) in a page served from its own
 * 127.0.0.1 origin, sending `Authorization: Bearer <token>`, at `rate` × speed until it ends
 * (or `timeoutMs` passes). Opens and closes its own page and page server.
 */
export async function hlsPlayToEnd(
  browser: Browser,
  playlistUrl: string,
  token: string,
  rate = 4,
  timeoutMs = 60_000,
): Promise<HlsPlayed> {
  const { createRequire } = await import('node:module');
  const { readFileSync } = await import('node:fs');
  const http = await import('node:http');
  const path = await import('node:path');
  const script = readFileSync(
    path.join(path.dirname(createRequire(import.meta.url).resolve('hls.js/package.json')), 'dist', 'hls.min.js'),
  );
  const server = http.createServer((req, res) => {
    if (req.url === '/hls.min.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<!doctype html><title>player</title><script src="/hls.min.js"></script><video id="v" muted playsinline></video>',
        );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    // A string, not a function: tsx would wrap named functions in a helper the page does not have.
    return (await page.evaluate(`new Promise((resolve) => {
      const v = document.getElementById('v');
      const done = (timedOut, error) => resolve({ currentTime: v.currentTime, duration: v.duration, ended: v.ended, width: v.videoWidth, height: v.videoHeight,
        error: error || (v.error ? 'media error ' + v.error.code : null), timedOut: !!timedOut });
      v.addEventListener('ended', () => done());
      v.addEventListener('error', () => done());
      v.addEventListener('loadedmetadata', () => { v.playbackRate = ${rate}; });
      setTimeout(() => done(true), ${timeoutMs});
      if (!Hls.isSupported()) { done(false, 'hls.js not supported'); return; }
      const hls = new Hls({ xhrSetup: (xhr) => xhr.setRequestHeader('Authorization', 'Bearer ${token}') });
      hls.on(Hls.Events.ERROR, (_e, data) => { if (data.fatal) done(false, 'hls fatal ' + data.details); });
      hls.loadSource(${JSON.stringify(playlistUrl)});
      hls.attachMedia(v);
      v.play().catch(() => undefined);
    })`)) as HlsPlayed;
  } finally {
    await page.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
