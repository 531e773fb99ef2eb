// Helper of bench/push-clients.ts, run as its own process so its CPU is not counted: N simulated
// capture daemons' shared memory (888 layout, monitors 1..N) whose state turns to Alarm once a
// second and back to Idle half a second later, phases spread over the second. The alarm cause
// carries the wall clock of the write (`t=<ms>`), so a client can compute the delivery latency.
//   node --import=tsx bench/_push-alarms.ts <mapDir> <n>
import { SimSharedMemory } from '../src/sim/shm-writer.js';

const [mapDir, n] = process.argv.slice(2) as [string, string];
const count = Number(n);
const shms = Array.from(
  { length: count },
  (_, i) => new SimSharedMemory({ mapDir, monitorId: i + 1, width: 64, height: 36, imageBufferCount: 2, fps: 10 }),
);
const beat = setInterval(() => shms.forEach((s) => s.heartbeat()), 1000);
const ALARM = 3;
const IDLE = 1;
const t0 = Date.now();
const timers = shms.map((shm, i) => {
  const offset = Math.floor((i / count) * 1000);
  return setTimeout(
    () => {
      const cycle = () => {
        shm.setState(ALARM, `t=${Date.now()}`);
        setTimeout(() => shm.setState(IDLE, ''), 500);
      };
      cycle();
      timers[i] = setInterval(cycle, 1000);
    },
    offset - ((Date.now() - t0) % 1000) + 1000,
  );
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  clearInterval(beat);
  for (const t of timers) clearInterval(t);
  for (const s of shms) s.close();
  process.exit(0);
});
