// zmgate-takeover with a stand-in `systemctl` on PATH (it records every call and keeps unit
// states in files) and a stand-in zmgate answering the health check: the order of the steps,
// idempotence, revert, refusal when not root or when a check fails, and rollback.
import test from 'ava';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, setDaemonEnabled } from '../../src/cli/zmgate-takeover.js';

const SYSTEMCTL = `#!/bin/sh
# A stand-in systemctl: records the call, keeps enabled/active states in $STATE.
echo "$*" >> "$STATE/calls"
case "$1" in
  is-enabled) cat "$STATE/$2.enabled" 2>/dev/null || echo disabled; exit 0 ;;
  is-active) cat "$STATE/$2.active" 2>/dev/null || echo inactive; exit 0 ;;
  show) echo ""; exit 0 ;;
esac
if [ -n "$FAIL" ] && [ "$*" = "$FAIL" ]; then echo "Job for $2 failed." >&2; exit 1; fi
case "$1" in
  enable) echo enabled > "$STATE/$2.enabled" ;;
  disable) echo disabled > "$STATE/$2.enabled" ;;
  start|restart) echo active > "$STATE/$2.active" ;;
  stop) echo inactive > "$STATE/$2.active" ;;
esac
# What the operator file said when zmgate was restarted.
[ "$1" = restart ] && grep '^enabled' "$APP_CONFIG_FILE" | sed 's/^/  file: /' >> "$STATE/calls"
exit 0
`;

let server: http.Server;
let port: number;

test.before(async () => {
  server = http.createServer((req, res) => {
    res.writeHead(req.url === '/api/v3/server/health_check' ? 200 : 404, { 'content-type': 'application/json' });
    res.end('{"message":"Ok"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
test.after.always(() => server?.close());

const ORIGINAL = '# operator settings\n[log]\nlevel = "info"\n';

function setup(extra: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'zmgate-tool-'));
  const bin = join(root, 'bin');
  const state = join(root, 'state');
  for (const d of [bin, state, join(root, 'events'), join(root, 'socks')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(bin, 'systemctl'), SYSTEMCTL);
  chmodSync(join(bin, 'systemctl'), 0o755);
  writeFileSync(join(state, 'zoneminder.service.enabled'), 'enabled\n');
  writeFileSync(join(state, 'zoneminder.service.active'), 'active\n');
  const file = join(root, 'prod.toml');
  writeFileSync(file, ORIGINAL);
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH}`,
    STATE: state,
    APP_CONFIG_FILE: file,
    APP_PROFILE: 'test',
    APP_SERVER__ADDR: '127.0.0.1',
    APP_SERVER__PORT: String(port),
    APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
    APP_ZONEMINDER__DIR_EVENTS: join(root, 'events'),
    APP_ZONEMINDER__PATH_SOCKS: join(root, 'socks'),
    ...extra,
  };
  const lines: string[] = [];
  const io = { env, uid: 0, out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
  // The calls that change something (queries left out), with the file lines recorded at restarts.
  const changes = () =>
    existsSync(join(state, 'calls'))
      ? readFileSync(join(state, 'calls'), 'utf8')
          .split('\n')
          .filter((l) => l && !/^(is-enabled|is-active|show) /.test(l))
      : [];
  return { file, env, io, lines, changes };
}

test('refuses unless root, before touching anything', async (t) => {
  const s = setup();
  t.is(await run(['-y'], { ...s.io, uid: 1000 }), 3);
  t.regex(s.lines.join('\n'), /must be run as root/);
  t.deepEqual(s.changes(), []);
  t.is(readFileSync(s.file, 'utf8'), ORIGINAL);
});

test('take over: disable, stop, flag, restart, in that order; a second run changes nothing; revert undoes it', async (t) => {
  const s = setup();
  t.is(await run(['-y'], s.io), 0, s.lines.join('\n'));
  t.deepEqual(s.changes(), [
    'disable zoneminder.service',
    'stop zoneminder.service',
    'restart zmgate.service',
    '  file: enabled = true',
  ]);
  t.is(readFileSync(s.file, 'utf8'), `${ORIGINAL}\n[daemon]\nenabled = true\n`);
  t.true(s.lines.includes('-> set daemon.enabled = true in ' + s.file));

  s.lines.length = 0;
  t.is(await run(['--yes'], s.io), 0);
  t.true(s.lines.includes('Already in takeover mode; nothing to do.'), s.lines.join('\n'));
  t.is(s.changes().length, 4, 'no new changes');

  t.is(await run(['--revert', '-y'], s.io), 0, s.lines.join('\n'));
  t.deepEqual(s.changes().slice(4), [
    'restart zmgate.service',
    '  file: enabled = false',
    'enable zoneminder.service',
    'start zoneminder.service',
  ]);
  t.regex(readFileSync(s.file, 'utf8'), /\[daemon\]\nenabled = false\n/);
  s.lines.length = 0;
  t.is(await run(['--passive', '-y'], s.io), 0);
  t.true(s.lines.includes('Already in passive mode; nothing to do.'), s.lines.join('\n'));
});

test('a failing step rolls back the steps done, in reverse, and restores the file', async (t) => {
  const s = setup({ FAIL: 'restart zmgate.service' });
  t.is(await run(['-y'], s.io), 1);
  t.deepEqual(s.changes(), [
    'disable zoneminder.service',
    'stop zoneminder.service',
    'restart zmgate.service',
    'start zoneminder.service',
    'enable zoneminder.service',
    'restart zmgate.service',
  ]);
  t.is(readFileSync(s.file, 'utf8'), ORIGINAL);
  t.regex(
    s.lines.join('\n'),
    /systemctl restart zmgate\.service failed: Job for zmgate\.service failed\.; rolling back/,
  );
});

test('checks come first: a service that does not answer refuses with a clear message', async (t) => {
  const s = setup({ APP_SERVER__PORT: '1' });
  t.is(await run(['-y'], s.io), 3);
  t.regex(
    s.lines.join('\n'),
    /check failed: zmgate does not answer at http:\/\/127\.0\.0\.1:1\/api\/v3\/server\/health_check/,
  );
  t.deepEqual(s.changes(), []);
});

test('an events directory that does not exist is a failed check', async (t) => {
  const s = setup({ APP_ZONEMINDER__DIR_EVENTS: '/nonexistent/events' });
  t.is(await run(['-y'], s.io), 3);
  t.regex(s.lines.join('\n'), /the events directory \/nonexistent\/events does not exist/);
});

test('without -y an unconfirmed plan changes nothing; usage errors exit 2', async (t) => {
  const s = setup();
  t.is(await run([], { ...s.io, confirm: async () => false }), 3);
  t.deepEqual(s.changes(), []);
  t.is(await run(['--bogus'], s.io), 2);
});

test('setDaemonEnabled edits the [daemon] table in place', (t) => {
  t.is(
    setDaemonEnabled('[daemon]\n# c\nenabled = false\n[web]\nenabled = false\n', true),
    '[daemon]\n# c\nenabled = true\n[web]\nenabled = false\n',
  );
  t.is(setDaemonEnabled('[daemon]\nstop_grace_secs = 5\n', true), '[daemon]\nenabled = true\nstop_grace_secs = 5\n');
  t.is(setDaemonEnabled('', true), '\n[daemon]\nenabled = true\n');
});
