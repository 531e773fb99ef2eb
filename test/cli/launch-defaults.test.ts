// The service's memory settings (package.json's zmgateRuntime) are what every way of starting it
// uses: `npm start`, the Debian launcher /usr/bin/zmgate and its systemd unit.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  scripts: Record<string, string>;
  zmgateRuntime: { nodeFlags: string[]; env: Record<string, string> };
};
const runtime = pkg.zmgateRuntime;

test('npm start passes every node flag and environment default', (t) => {
  const start = pkg.scripts.start!;
  for (const flag of runtime.nodeFlags) t.true(start.includes(` ${flag} `), flag);
  for (const [k, v] of Object.entries(runtime.env)) t.true(start.includes(`${k}=\${${k}:-${v}}`), k);
  t.true(start.endsWith('bin/zmgate.js'));
});

test('the node flags are accepted by this node', (t) => {
  const r = spawnSync(process.execPath, [...runtime.nodeFlags, '-e', 'process.exit(0)'], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  t.is(r.stderr, '');
});

test('the systemd unit sets the malloc arenas and the Debian launcher takes the flags from package.json', (t) => {
  const unit = readFileSync(`${root}packaging/deb/zmgate.service`, 'utf8');
  for (const [k, v] of Object.entries(runtime.env)) t.regex(unit, new RegExp(`^Environment=${k}=${v}$`, 'm'));
  const build = readFileSync(`${root}packaging/deb/build-deb.sh`, 'utf8');
  t.regex(build, /zmgateRuntime\.nodeFlags/);
  t.regex(build, /zmgateRuntime\.env\.MALLOC_ARENA_MAX/);
  // The launcher reads the staged package.json, so the release stage must carry the field.
  const stage = readFileSync(`${root}scripts/release-stage.mjs`, 'utf8');
  t.regex(stage, /zmgateRuntime: pkg\.zmgateRuntime/);
});
