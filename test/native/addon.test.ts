// The native addon (zmgate.node) through its TS facade. Needs `npm run build:native` first
// (or an existing prebuild); the prebuild test makes its own prebuild in a temporary copy.

import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import test from 'ava';

import {
  PACKAGE_ROOT,
  ZmNativeError,
  boxHeader,
  loadBinding,
  nativeInfo,
  nativeVersion,
} from '../../src/native/index.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  binary: { napi_versions: number[] };
};
const tuple = `${process.platform}-${process.arch}`;
const facadeUrl = pathToFileURL(join(PACKAGE_ROOT, 'src', 'native', 'index.ts')).href;

const scratch = mkdtempSync(join(tmpdir(), 'zmgate-native-'));
test.after.always(() => rmSync(scratch, { recursive: true, force: true }));

/** A directory holding only package.json: nothing for the loader to find. */
function emptyPackageDir(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  copyFileSync(join(PACKAGE_ROOT, 'package.json'), join(dir, 'package.json'));
  return dir;
}

/** Runs an ES module snippet in a fresh node (with tsx, so it can import the .ts facade). */
function runNode(code: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: PACKAGE_ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

test('version() round-trips package.json version; N-API version matches binary.napi_versions', (t) => {
  t.is(nativeVersion(), pkg.version);
  t.is(loadBinding().napiVersion(), pkg.binary.napi_versions[0]);
  const info = nativeInfo();
  t.is(info.version, pkg.version);
  t.true(info.path.startsWith(PACKAGE_ROOT), info.path);
  t.regex(info.path, /zmgate\.node$/);
});

test('boxHeader returns big-endian size then the 4-byte type', (t) => {
  t.deepEqual(boxHeader('ftyp', 24), Buffer.from([0, 0, 0, 24, 0x66, 0x74, 0x79, 0x70]));
  t.deepEqual(boxHeader('moov', 0x0102_0304), Buffer.from([1, 2, 3, 4, 0x6d, 0x6f, 0x6f, 0x76]));
  t.deepEqual(boxHeader('mdat', 0xffff_ffff), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x6d, 0x64, 0x61, 0x74]));
  t.deepEqual(boxHeader('free', 8).subarray(0, 4), Buffer.from([0, 0, 0, 8]));
});

test('the TS facade validates before native code (TypeError / RangeError, not ZmNativeError)', (t) => {
  for (const type of ['', 'ftypx', 'fty', 'ft\ny', 'fty\u00e9', 42 as unknown as string]) {
    const err = t.throws(() => boxHeader(type, 16), { instanceOf: TypeError });
    t.false(err instanceof ZmNativeError);
  }
  for (const size of [7, 0, -8, 8.5, 2 ** 32, Number.NaN, Infinity, '16' as unknown as number]) {
    const err = t.throws(() => boxHeader('ftyp', size), { instanceOf: RangeError });
    t.false(err instanceof ZmNativeError);
  }
});

test('native errors reach JS as ZmNativeError with a code (raw binding, TS checks bypassed)', (t) => {
  const raw = loadBinding();
  const cases: Array<[unknown, unknown, string]> = [
    ['ftypx', 16, 'ERR_ZM_BOX_TYPE'],
    ['fty\u00e9', 16, 'ERR_ZM_BOX_TYPE'], // 4 chars but 5 UTF-8 bytes
    [42, 16, 'ERR_ZM_BOX_TYPE'],
    ['ftyp', 2 ** 32, 'ERR_ZM_BOX_SIZE'],
    ['ftyp', '16', 'ERR_ZM_BOX_SIZE'],
  ];
  for (const [type, size, code] of cases) {
    const err = t.throws(() => raw.boxHeader(type as string, size as number), { instanceOf: ZmNativeError });
    t.is(err.code, code);
    t.is(err.name, 'ZmNativeError');
    t.true(err.stack?.includes('addon.test'), 'stack points at the JS caller');
  }
});

test('binding.gyp declares nothing to build, so it cannot drift from CMakeLists.txt', (t) => {
  const text = readFileSync(join(PACKAGE_ROOT, 'binding.gyp'), 'utf8');
  // The file is JSON apart from whole-line # comments (see its header).
  const gyp = JSON.parse(text.replace(/^\s*#.*$/gm, '')) as Record<string, unknown>;
  t.deepEqual(Object.keys(gyp), ['targets']);
  for (const target of gyp.targets as Array<Record<string, unknown>>) {
    t.is(target.type, 'none');
    t.deepEqual(Object.keys(target).sort(), ['target_name', 'type'], 'no sources, defines, flags or dependencies');
  }
  t.true(existsSync(join(PACKAGE_ROOT, 'CMakeLists.txt')));
});

test('a missing addon gives an actionable error, and only on first use, not on import', (t) => {
  const dir = emptyPackageDir('empty');
  const err = t.throws(() => loadBinding(dir));
  for (const needle of [
    'zmgate.node was not found',
    `ABI ${process.versions.modules}`,
    join(dir, 'build', 'Release'),
    join(dir, 'prebuilds', tuple),
    'npm run build:native',
    'npm run prebuild',
    'Cause: No native build was found',
  ]) {
    t.true(err.message.includes(needle), `message mentions ${needle}:\n${err.message}`);
  }
  t.true(err.cause instanceof Error);

  // In a fresh process, point the default loader at the empty dir (node-gyp-build honours
  // ZMGATE_PREBUILD): importing the facade must succeed; the first call must fail helpfully.
  const child = runNode(
    `const m = await import(${JSON.stringify(facadeUrl)});
     console.log('imported');
     try { m.nativeVersion(); } catch (e) { console.log(e.message); }`,
    { ...process.env, ZMGATE_PREBUILD: emptyPackageDir('empty-env') },
  );
  t.is(child.status, 0, child.stderr);
  t.regex(child.stdout, /^imported\n/);
  t.regex(child.stdout, /zmgate\.node was not found[\s\S]*npm run build:native/);
});

test('after deleting build/, the addon still loads from prebuilds/', (t) => {
  // `npm run prebuild` in a copy of the native sources: exercises the real script and shim
  // without touching (or racing on) this checkout's build/ and prebuilds/.
  const copy = join(scratch, 'pkg');
  mkdirSync(join(copy, 'scripts'), { recursive: true });
  for (const file of ['package.json', 'CMakeLists.txt', 'binding.gyp', 'scripts/cmake-js-shim.sh']) {
    copyFileSync(join(PACKAGE_ROOT, file), join(copy, file));
  }
  cpSync(join(PACKAGE_ROOT, 'native'), join(copy, 'native'), { recursive: true });
  symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');

  // A full addon build on 2 cores (~45 s alone; more while other test files run).
  const build = spawnSync('npm', ['run', 'prebuild'], { cwd: copy, encoding: 'utf8', timeout: 180_000 });
  t.is(build.status, 0, `${build.stdout}\n${build.stderr}`);
  const prebuild = join(copy, 'prebuilds', tuple, 'zmgate.node');
  t.true(existsSync(prebuild), 'prebuildify wrote the prebuild');

  rmSync(join(copy, 'build'), { recursive: true, force: true });
  const child = runNode(
    `const m = await import(${JSON.stringify(facadeUrl)});
     console.log(JSON.stringify(m.nativeInfo(${JSON.stringify(copy)})));`,
  );
  t.is(child.status, 0, child.stderr);
  const info = JSON.parse(child.stdout) as { path: string; version: string; napiVersion: number };
  t.is(info.path, prebuild);
  t.is(info.version, pkg.version);
  t.is(info.napiVersion, pkg.binary.napi_versions[0]);
});
