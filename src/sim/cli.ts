// `node bin/zmgate-sim.js`: simulated cameras without the rest of the demo, for benchmarks and
// for pointing a zmgate (zoneminder.path_socks / path_map) at them by hand. Runs until SIGINT/SIGTERM,
// then stops each camera as zmc would (BYE, socket and shared memory removed).
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SimCamera } from './camera.js';

const USAGE = 'Usage: zmgate-sim --socks <dir> --map <dir> [--count N (1)] [--first-id N (1)] [--shm-fps N (5)]\n';

export async function run(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        socks: { type: 'string' },
        map: { type: 'string' },
        count: { type: 'string', default: '1' },
        'first-id': { type: 'string', default: '1' },
        'shm-fps': { type: 'string', default: '5' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`zmgate-sim: ${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const count = Number(values.count);
  const first = Number(values['first-id']);
  const shmFps = Number(values['shm-fps']);
  if (
    !values.socks ||
    !values.map ||
    !(count >= 1 && count <= 256) ||
    !(first >= 1) ||
    !(shmFps > 0 && shmFps <= 30) ||
    ![count, first].every(Number.isInteger)
  ) {
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return;
  }
  const socketDir = resolve(values.socks);
  const mapDir = resolve(values.map);
  mkdirSync(socketDir, { recursive: true });
  mkdirSync(mapDir, { recursive: true });
  const cameras: SimCamera[] = [];
  for (let i = 0; i < count; i++)
    cameras.push(await SimCamera.start({ monitorId: first + i, socketDir, mapDir, shmFps }));
  process.stderr.write(
    `zmgate-sim: ${count} camera(s), monitors ${first}..${first + count - 1}; sockets in ${socketDir}, shared memory in ${mapDir}\n`,
  );
  const stop = async () => {
    await Promise.all(cameras.map((c) => c.stop()));
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
