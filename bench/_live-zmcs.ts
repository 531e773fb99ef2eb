// Helper of bench/live-viewers.ts, run as its own process so its CPU is not counted: N fake zmcs
// (monitors 1..N) in one socket directory, serving a clip at its real pace. Like a real zmc, a
// new reader joins mid-GOP: a KEYFRAME, then live frames from frame 1, so packaging starts at
// the next keyframe (frame `fps`, one GOP in). Prints `ready`, then `conn <monitor> <ms>` with
// the wall clock of each new connection (frame 1 is sent then).
//   node --import=tsx bench/_live-zmcs.ts <dir> <n> '<clip spec JSON>'
import { FakeZmc } from '../test/helpers/fake-zmc.js';
import { type ClipSpec, mediaClip } from '../test/helpers/media.js';

const [dir, n, spec] = process.argv.slice(2) as [string, string, string];
const clip = await mediaClip(JSON.parse(spec) as ClipSpec);
const zmcs: FakeZmc[] = [];
for (let id = 1; id <= Number(n); id++)
  zmcs.push(await FakeZmc.start({ clip, monitorId: id, dir, pace: 'realtime', joinAt: 1 }));
const seen = zmcs.map(() => 0);
// FakeZmc has no connection hook: a 1 ms poll stamps each connection within a millisecond or so.
setInterval(() => {
  zmcs.forEach((z, i) => {
    if (z.accepted > seen[i]!) {
      seen[i] = z.accepted;
      process.stdout.write(`conn ${i + 1} ${Date.now()}\n`);
    }
  });
}, 1);
process.stdout.write('ready\n');
process.on('SIGTERM', () => void Promise.all(zmcs.map((z) => z.close())).then(() => process.exit(0)));
