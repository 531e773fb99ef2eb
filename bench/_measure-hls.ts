// Measurer for bench/native-hls.ts (bundled to plain JS and run in a fresh process): consumes one
// stream-socket stream until its end EVENT and prints CPU per thread as JSON.
//   node build/bench-js/measure-hls.mjs <socket path> <js|hls> <warm-up ms>
// js: a JS 'media' listener (every access unit crosses into JS); hls: LlHlsPackager attached
// natively; viewer: the same plus one LL-HLS client (a blocking reload per part: wait, render the
// playlist, fetch the part), without the HTTP layer.

import { readFileSync, readdirSync } from 'node:fs';

import { LlHlsPackager, StreamClient } from '../src/native/index.js';

/** CPU ns per thread of this process (schedstat: exact, unlike the 10 ms ticks of /proc/…/stat). */
function threadCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task'))
    out.set(Number(tid), Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
  return out;
}

const [path, mode, warmup] = process.argv.slice(2) as [string, 'js' | 'hls' | 'viewer', string];
const known = new Set(threadCpu().keys());
const client = new StreamClient({ path });
const packager = mode === 'js' ? undefined : new LlHlsPackager();
if (packager) packager.attach(client);
else client.on('media', () => {});
let done = false;
const ended = new Promise<void>((resolve) => client.once('event', () => resolve())).then(() => (done = true));
let served = 0;
if (packager && mode === 'viewer') {
  void (async () => {
    let msn = 0;
    let part = 0;
    while (!done) {
      if (!(await packager.waitFor(msn, part, 2000))) continue;
      const hint = /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-(\d+)\.(\d+)\.m4s/.exec(packager.playlist() ?? '');
      if (packager.get(`part-${msn}.${part}.m4s`)) served++;
      if (hint) [msn, part] = [Number(hint[1]), Number(hint[2])];
    }
  })();
}
// Steady state: start counting once start-up work (module compilation, first GCs) has settled.
await new Promise((r) => setTimeout(r, Number(warmup)));
const before = threadCpu();
const c0 = process.cpuUsage();
const w0 = performance.now();
await ended;
const wallMs = performance.now() - w0;
const c = process.cpuUsage(c0);
let main = 0;
let reader = 0;
let other = 0;
for (const [tid, ns] of threadCpu()) {
  const d = (ns - (before.get(tid) ?? 0)) / 1e6;
  if (tid === process.pid) main += d;
  else if (!known.has(tid))
    reader += d; // started with the client: its reader thread
  else other += d; // V8 platform (GC, compiler) and libuv workers
}
console.log(
  JSON.stringify({
    cpuMs: (c.user + c.system) / 1000,
    wallMs,
    main,
    reader,
    other,
    parts: packager?.stats().parts ?? 0,
    served,
  }),
);
await client.close();
