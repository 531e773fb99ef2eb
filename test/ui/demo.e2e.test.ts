// `npm run demo` end to end: the launcher (bin/zmgate-demo.js, needs the dist build) starts its
// MariaDB, the simulated cameras and the server; Debian's Chromium opens the demo page, which
// signs in and shows both simulated cameras live (HLS when offered, else MJPEG) with snapshots,
// and the camera without a capture daemon as not capturing; a forced alarm shows up as it happens
// (push socket). SIGTERM stops everything.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import test from 'ava';

import { launchChromium } from '../helpers/browser.js';

const BIN = fileURLToPath(new URL('../../bin/zmgate-demo.js', import.meta.url));

function startDemo(): Promise<{ child: ChildProcess; page: string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN], {
    env: { ...process.env, APP_SERVER__PORT: '0', APP_LOG__LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not start:\n${err}`)), 90_000);
    child.stderr!.on('data', (chunk) => {
      err += chunk;
      const m = /live demo page: (http:\/\/\S+\/demo\/)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, page: m[1]!, stderr: () => err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`demo exited with ${code}:\n${err}`));
    });
  });
}

test('npm run demo: the demo page shows the simulated cameras live, with snapshots', async (t) => {
  t.timeout(180_000);
  const demo = await startDemo();
  const exited = once(demo.child, 'exit');
  // SIGTERM first: the demo then stops its cameras and its MariaDB (a SIGKILL would orphan mysqld).
  t.teardown(async () => {
    if (demo.child.exitCode !== null) return;
    demo.child.kill('SIGTERM');
    await Promise.race([exited, sleep(20_000)]);
    if (demo.child.exitCode === null) demo.child.kill('SIGKILL');
  });
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(demo.page);
  await page.waitForFunction(() => document.querySelectorAll('figure').length === 3, undefined, { timeout: 30_000 });

  for (const id of ['1', '2']) {
    // Live: a playing <video> (LL-HLS) or an MJPEG <img> that has decoded a frame.
    await page.waitForFunction(
      (monitorId) => {
        const fig = document.querySelector(`figure[data-monitor-id="${monitorId}"]`);
        const video = fig?.querySelector('video');
        const live = fig?.querySelector('img.live') as HTMLImageElement | null;
        return (video && video.currentTime > 0) || (live && live.naturalWidth > 0);
      },
      id,
      { timeout: 30_000 },
    );
    await page.waitForFunction(
      (monitorId) =>
        ((document.querySelector(`figure[data-monitor-id="${monitorId}"] img.snap`) as HTMLImageElement | null)
          ?.naturalWidth ?? 0) === 640,
      id,
      { timeout: 30_000 },
    );
  }
  await page.waitForFunction(
    () => /not capturing/.test(document.querySelector('figure[data-monitor-id="3"]')?.textContent ?? ''),
    undefined,
    { timeout: 30_000 },
  );
  // Alarms as they happen: the page's Force alarm button, then the pushed alarm outlines the camera.
  await page.click('figure[data-monitor-id="1"] button:text("Force alarm")');
  await page.waitForFunction(
    () => document.querySelector('figure[data-monitor-id="1"]')?.classList.contains('alarm'),
    undefined,
    { timeout: 30_000 },
  );
  t.regex(
    (await page.textContent('figure[data-monitor-id="1"] .alarm-state')) ?? '',
    /ALARM: Demo button \(score 50\)/,
  );
  await page.click('figure[data-monitor-id="1"] button:text("Cancel alarm")');
  await page.waitForFunction(
    () => !document.querySelector('figure[data-monitor-id="1"]')?.classList.contains('alarm'),
    undefined,
    { timeout: 30_000 },
  );
  t.regex((await page.textContent('#alarms')) ?? '', /monitor 1: alarm end/);
  const how = await page.$$eval('figure', (figs) => figs.map((f) => f.querySelector('.row span')?.textContent));
  t.log(`live modes: ${how.join(' | ')}`);
  t.deepEqual(problems, []);

  demo.child.kill('SIGTERM');
  const [code] = await exited;
  t.is(code, 0, demo.stderr());
});
