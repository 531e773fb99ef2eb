// Clean-up backstops: a StreamClient dropped without close() is stopped after GC (so a ref'd
// client does not keep the process alive forever), and a worker thread that exits with a client
// open tears it down through the environment cleanup hook without crashing.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import test from 'ava';

import { PACKAGE_ROOT, nativeInfo } from '../../src/native/index.js';

const facadeUrl = pathToFileURL(join(PACKAGE_ROOT, 'src', 'native', 'index.ts')).href;

function runNode(args: string[], code: string, type: 'module' | 'commonjs' = 'module') {
  return spawnSync(process.execPath, [...args, `--input-type=${type}`, '-e', code], {
    cwd: PACKAGE_ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

test('a client dropped without close() is stopped after GC and lets the process exit', (t) => {
  const child = runNode(
    ['--expose-gc', '--import', 'tsx'],
    `
    const { StreamClient } = await import(${JSON.stringify(facadeUrl)});
    (() => { new StreamClient({ path: '/nonexistent/stream_1.sock', reconnect: { initialDelayMs: 10 } }); })();
    await new Promise((r) => setTimeout(r, 50));
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 50));
    globalThis.gc();
    console.log('dropped');
  `,
  );
  t.is(child.error, undefined, 'exited on its own (no timeout)');
  t.is(child.status, 0, child.stderr);
  t.regex(child.stdout, /dropped/);
});

test('a worker that exits with an open client is torn down by the cleanup hook', (t) => {
  const addon = nativeInfo().path;
  const child = runNode(
    [],
    `
    const { Worker } = require('node:worker_threads');
    const w = new Worker(\`
      const b = require(${JSON.stringify(addon)});
      const c = new b.StreamClient({ path: '/nonexistent/stream_1.sock', initialDelayMs: 5 }, () => {});
      require('node:worker_threads').parentPort.postMessage('open');
    \`, { eval: true });
    w.once('message', async () => { await w.terminate(); console.log('terminated'); });
  `,
    'commonjs',
  );
  t.is(child.error, undefined, 'exited on its own (no timeout)');
  t.is(child.status, 0, child.stderr);
  t.regex(child.stdout, /terminated/);
});
