// config/base.toml documents every setting, agrees with the built-in defaults, and loads cleanly.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { loadConfig, SETTING_KEYS, SETTINGS, type LoadedConfig } from '../../src/config/index.js';

const CONFIG_DIR = fileURLToPath(new URL('../../config/', import.meta.url));
const baseLines = readFileSync(join(CONFIG_DIR, 'base.toml'), 'utf8').split('\n');

/** base.toml's setting lines by dotted key: table header + `key =`, or `# key =` when commented out. */
function settingLines(): Map<string, { index: number; commented: boolean; text: string }> {
  const found = new Map<string, { index: number; commented: boolean; text: string }>();
  let table = '';
  baseLines.forEach((line, index) => {
    const header = /^\[([a-z0-9_.]+)\]\s*$/.exec(line);
    if (header) {
      table = header[1];
      return;
    }
    const setting = /^(# )?([a-z0-9_]+) = /.exec(line);
    if (setting)
      found.set(`${table}.${setting[2]}`, {
        index,
        commented: setting[1] !== undefined,
        text: line.replace(/^# /, ''),
      });
  });
  return found;
}

function loadBaseOnly(): LoadedConfig {
  const nowhere = join(tmpdir(), `zmgate-none-${process.pid}`);
  return loadConfig({
    env: { APP_ZONEMINDER__CONFIG_PATH: join(nowhere, 'zm.conf') },
    defaultOperatorFile: join(nowhere, 'prod.toml'),
  });
}

test('base.toml has a line for every setting, preceded by a comment', (t) => {
  const lines = settingLines();
  for (const key of SETTING_KEYS) {
    const line = lines.get(key);
    if (!line) {
      t.fail(`${key} missing from base.toml`);
      continue;
    }
    t.is(
      line.commented,
      SETTINGS[key].commentedInBase === true,
      `${key} commented out iff it has a zm.conf/code fallback`,
    );
    const before = baseLines[line.index - 1];
    t.true(before.startsWith('#') && !/^# [a-z0-9_]+ = /.test(before), `${key} is preceded by a documenting comment`);
  }
  t.deepEqual(
    [...lines.keys()].filter((k) => !(SETTING_KEYS as string[]).includes(k)),
    [],
    'no extra keys',
  );
});

test('base.toml values equal the built-in defaults', (t) => {
  for (const [key, line] of settingLines()) {
    const name = key.split('.').pop() as string;
    const raw = parse(line.text)[name];
    const setting = SETTINGS[key as keyof typeof SETTINGS];
    t.deepEqual(setting.type.parse(raw, false), setting.default, key);
  }
});

test('loading base.toml alone warns only about the origins fallback and matches the defaults', (t) => {
  const { config, notices } = loadBaseOnly();
  const problems = notices.filter((n) => n.level !== 'info');
  t.deepEqual(
    problems.map((n) => [n.level, n.key]),
    [['warn', 'server.allowed_origins']],
  );
  for (const key of SETTING_KEYS) {
    const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], config);
    const expected =
      key === 'zoneminder.config_path'
        ? join(tmpdir(), `zmgate-none-${process.pid}`, 'zm.conf')
        : SETTINGS[key].default;
    t.deepEqual(value, expected, key);
  }
});

test('every profile file loads without warnings beyond the origins fallback', (t) => {
  for (const profile of ['dev', 'test', 'test-db', 'prod']) {
    const nowhere = join(tmpdir(), `zmgate-none-${process.pid}`);
    const { notices, config } = loadConfig({
      env: { APP_PROFILE: profile, APP_ZONEMINDER__CONFIG_PATH: join(nowhere, 'zm.conf') },
      defaultOperatorFile: join(nowhere, 'prod.toml'),
    });
    t.is(config.profile, profile as typeof config.profile);
    t.deepEqual(
      notices.filter((n) => n.level !== 'info').map((n) => n.key),
      ['server.allowed_origins'],
      profile,
    );
  }
});
