// Permission denied on the stream socket must be a real EACCES and an actionable error. Root
// bypasses file permissions, so as root the client runs in a child process as `nobody`; as any
// other user, the socket is simply chmod 000.

import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import test from 'ava';

import { PACKAGE_ROOT, StreamClient, type StreamDisconnect, nativeInfo } from '../../src/native/index.js';
import { FakeZmc } from '../helpers/fake-zmc.js';
import { mediaClip } from '../helpers/media.js';

const NOBODY = 65534;
const facadeUrl = pathToFileURL(join(PACKAGE_ROOT, 'src', 'native', 'index.ts')).href;

// Prints the first disconnect as JSON; also what the log received.
const childScript = (path: string) => `
  const { StreamClient } = await import(${JSON.stringify(facadeUrl)});
  const logged = [];
  const log = { warn: (f, m) => logged.push(m), info: () => {} };
  const c = new StreamClient({ path: ${JSON.stringify(path)}, reconnect: { initialDelayMs: 10 }, log });
  c.once('disconnected', async (d) => {
    console.log(JSON.stringify({ code: d.code, message: d.message, reason: d.reason, errorName: d.error?.name, errorCode: d.error?.code, logged }));
    await c.close();
  });
`;

// When `nobody` cannot read this checkout (e.g. a clone under /root), the child loads a copy of the
// addon directly instead of the TS facade: still a real EACCES through the native path.
const rawChildScript = (addon: string, path: string) => `
  const { StreamClient } = require(${JSON.stringify(addon)});
  const c = new StreamClient({ path: ${JSON.stringify(path)}, initialDelayMs: 10 }, (records) => {
    const d = records.find((r) => r.type === 'disconnected');
    if (!d) return;
    console.log(JSON.stringify({ code: d.code, message: d.message, reason: d.reason, errorName: 'ZmNativeError', errorCode: d.code, logged: [d.message] }));
    c.close();
  });
`;

function nobodyCanRead(...paths: string[]): boolean {
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `for (const p of ${JSON.stringify(paths)}) require('node:fs').accessSync(p, require('node:fs').constants.R_OK)`,
    ],
    { uid: NOBODY, gid: NOBODY },
  );
  return probe.status === 0;
}

test('a socket the service user may not open gives ERR_ZM_STREAM_SOCKET_PERMISSION with the group hint', async (t) => {
  // The directory must be enterable by nobody; the socket itself stays root-only (0660 root:root).
  const dir = mkdtempSync(join(tmpdir(), 'zm_perm_'));
  chmodSync(dir, 0o755);
  const zmc = await FakeZmc.start({ clip: await mediaClip({ video: 'h264-baseline' }), dir });
  t.teardown(async () => {
    await zmc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let result: Pick<StreamDisconnect, 'code' | 'message' | 'reason'> & {
    errorName?: string;
    errorCode?: string;
    logged: string[];
  };
  if (process.getuid?.() === 0) {
    chmodSync(zmc.path, 0o660);
    let args = ['--import', 'tsx', '--input-type=module', '-e', childScript(zmc.path)];
    let cwd = PACKAGE_ROOT;
    if (
      !nobodyCanRead(
        join(PACKAGE_ROOT, 'src', 'native', 'index.ts'),
        join(PACKAGE_ROOT, 'node_modules', 'tsx', 'package.json'),
        nativeInfo().path,
      )
    ) {
      const addon = join(dir, 'zmgate.node');
      copyFileSync(nativeInfo().path, addon);
      chmodSync(addon, 0o755);
      args = ['-e', rawChildScript(addon, zmc.path)];
      cwd = dir;
      t.log('checkout not readable by nobody: the child loads a copy of the addon directly');
    }
    const child = spawnSync(process.execPath, args, {
      cwd,
      uid: NOBODY,
      gid: NOBODY,
      env: { ...process.env, HOME: tmpdir(), TMPDIR: tmpdir() },
      encoding: 'utf8',
      timeout: 60_000,
    });
    t.is(child.status, 0, child.stderr);
    result = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as typeof result;
  } else {
    chmodSync(zmc.path, 0o000);
    const logged: string[] = [];
    const client = new StreamClient({ path: zmc.path, log: { warn: (_f, m) => logged.push(m), info: () => {} } });
    t.teardown(() => client.close());
    const d = await new Promise<StreamDisconnect>((resolve) => client.once('disconnected', resolve));
    result = {
      code: d.code,
      message: d.message,
      reason: d.reason,
      errorName: d.error?.name,
      errorCode: d.error?.code,
      logged,
    };
  }

  t.is(result.reason, 'connect');
  t.is(result.code, 'ERR_ZM_STREAM_SOCKET_PERMISSION');
  t.is(result.errorName, 'ZmNativeError');
  t.is(result.errorCode, 'ERR_ZM_STREAM_SOCKET_PERMISSION');
  t.true(result.message.startsWith(`permission denied opening stream socket ${zmc.path}`), result.message);
  t.regex(result.message, /must be in the recording system's stream socket group/);
  t.regex(result.message, /ZM_STREAM_SOCKET_GROUP/);
  t.deepEqual(result.logged, [result.message], 'the log says it, once');
  t.is(zmc.accepted, 0);
});
