// Stages the npm package that `npm pack` turns into the release tarball: the built JavaScript
// (dist/), the launchers (bin/), the packaged configuration (config/), the simulated camera's clip
// (assets/sim/, for zmgate-sim), the demo page's files (assets/demo/, web.demo_page), the push
// messages' schema the OpenAPI document is built from at start (docs/push-messages.schema.json)
// and the prebuilt addons (prebuilds/linux-x64, prebuilds/linux-arm64).
// Its package.json has no lifecycle scripts: an installed copy loads a prebuild (node-gyp-build)
// and never builds, so `npm install -g zmgate-<version>.tgz` needs no compiler and no apt.
//
// Usage: node scripts/release-stage.mjs STAGE_DIR
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stage = process.argv[2];
if (!stage) {
  console.error('usage: node scripts/release-stage.mjs STAGE_DIR');
  process.exit(2);
}
const fail = (message) => {
  console.error(`release-stage: ${message}`);
  process.exit(1);
};
for (const arch of ['x64', 'arm64']) {
  if (!existsSync(join(root, 'prebuilds', `linux-${arch}`, 'zmgate.node')))
    fail(`prebuilds/linux-${arch}/zmgate.node is missing (scripts/release.sh builds it)`);
}
if (!existsSync(join(root, 'dist', 'cli', 'zmgate.js'))) fail('dist/ is missing: npm run build:ts');

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Launchers of the release: those whose file exists (the demo is a development tool).
const bin = Object.fromEntries(Object.entries(pkg.bin).filter(([, file]) => existsSync(join(root, file))));
const release = {
  name: pkg.name,
  version: pkg.version,
  description: pkg.description,
  license: pkg.license,
  type: pkg.type,
  engines: pkg.engines,
  // How the service is started (flags and environment): read by the Debian launcher and unit.
  zmgateRuntime: pkg.zmgateRuntime,
  os: ['linux'],
  cpu: ['x64', 'arm64'],
  bin,
  dependencies: pkg.dependencies,
  // Kept so that package-lock.json still matches when the .deb is assembled with `npm ci`.
  devDependencies: pkg.devDependencies,
  allowScripts: pkg.allowScripts,
};
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(release, null, 2)}\n`);
const copy = (from, filter) => cpSync(join(root, from), join(stage, from), { recursive: true, filter });
for (const file of Object.values(bin)) copy(file);
copy('dist', (src) => !src.endsWith('.map'));
copy('config');
copy('assets/sim');
copy('assets/demo');
copy('docs/push-messages.schema.json');
copy('README.md');
for (const arch of ['x64', 'arm64']) copy(`prebuilds/linux-${arch}/zmgate.node`);
console.log(`release-stage: ${stage} (${pkg.name} ${pkg.version}, bins: ${Object.keys(bin).join(', ')})`);
