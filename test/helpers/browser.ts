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
