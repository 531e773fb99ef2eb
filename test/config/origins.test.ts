// server.allowed_origins: parsing, the localhost fallback, the deprecated ALLOWED_ORIGINS, and
// the matcher the CORS middleware uses.
import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  DEFAULT_ALLOWED_ORIGINS,
  loadConfig,
  originMatcher,
  type LoadedConfig,
} from '../../src/config/index.js';

function sandbox(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-origins-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const operator = join(dir, 'etc', 'prod.toml');
  return {
    operator,
    writeOperator(text: string) {
      mkdirSync(join(dir, 'etc'), { recursive: true });
      writeFileSync(operator, text);
    },
    load(env: Record<string, string> = {}): LoadedConfig {
      return loadConfig({
        env: { APP_ZONEMINDER__CONFIG_PATH: join(dir, 'zm', 'zm.conf'), ...env },
        defaultOperatorFile: operator,
      });
    },
  };
}

const warnings = (l: LoadedConfig) => l.notices.filter((n) => n.level === 'warn');

test('a TOML array is accepted and normalised', (t) => {
  const s = sandbox(t);
  s.writeOperator(
    '[server]\nallowed_origins = ["https://UI.Example.com", "http://cams.lan:*", "https://x.example.com:443"]\n',
  );
  const loaded = s.load();
  t.deepEqual(loaded.config.server.allowed_origins, [
    'https://ui.example.com',
    'http://cams.lan:*',
    'https://x.example.com',
  ]);
  t.is(loaded.sources['server.allowed_origins'], s.operator);
  t.deepEqual(warnings(loaded), []);
});

test('a comma-separated string is accepted, in TOML and in the environment', (t) => {
  const s = sandbox(t);
  s.writeOperator('[server]\nallowed_origins = "https://a.example.com, http://b.example.com:8081"\n');
  t.deepEqual(s.load().config.server.allowed_origins, ['https://a.example.com', 'http://b.example.com:8081']);
  const env = s.load({ APP_SERVER__ALLOWED_ORIGINS: 'https://c.example.com,capacitor://localhost' });
  t.deepEqual(env.config.server.allowed_origins, ['https://c.example.com', 'capacitor://localhost']);
});

test('indexed environment variables set the list', (t) => {
  const { config } = sandbox(t).load({
    APP_SERVER__ALLOWED_ORIGINS__0: 'https://a.example.com',
    APP_SERVER__ALLOWED_ORIGINS__1: 'https://b.example.com',
  });
  t.deepEqual(config.server.allowed_origins, ['https://a.example.com', 'https://b.example.com']);
});

test("a bare '*' is refused, naming server.allowed_origins", (t) => {
  const s = sandbox(t);
  const err = t.throws(() => s.load({ APP_SERVER__ALLOWED_ORIGINS: '*' }), { instanceOf: ConfigError }) as ConfigError;
  t.is(err.key, 'server.allowed_origins');
  t.is(err.source, 'APP_SERVER__ALLOWED_ORIGINS (environment)');
  t.regex(err.message, /^invalid configuration: server\.allowed_origins .*bare "\*" is not accepted/);
});

test('wildcards other than the port, paths and junk are refused', (t) => {
  const s = sandbox(t);
  for (const bad of [
    'https://*.example.com',
    'http://localhost:*/',
    'https://example.com/app',
    'example.com',
    'http://a.com:0',
  ]) {
    s.writeOperator(`[server]\nallowed_origins = ["https://ok.example.com", "${bad}"]\n`);
    const err = t.throws(() => s.load(), { instanceOf: ConfigError }, bad) as ConfigError;
    t.is(err.key, 'server.allowed_origins', bad);
    t.is(err.source, s.operator, bad);
  }
});

test('no origins configured: localhost default with a warning, and the list is reported', (t) => {
  const s = sandbox(t);
  for (const loaded of [s.load(), s.load({ APP_SERVER__ALLOWED_ORIGINS: '' })]) {
    t.deepEqual(loaded.config.server.allowed_origins, ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*']);
    const warned = warnings(loaded);
    t.is(warned.length, 1);
    t.is(warned[0].key, 'server.allowed_origins');
    t.regex(warned[0].msg, /falling back to the default/);
    t.true(loaded.notices.some((n) => n.level === 'info' && n.msg.includes('http://127.0.0.1:*')));
  }
});

test('the effective list is reported at info level', (t) => {
  const loaded = sandbox(t).load({ APP_SERVER__ALLOWED_ORIGINS: 'https://ui.example.com' });
  const info = loaded.notices.find((n) => n.level === 'info' && n.key === 'server.allowed_origins');
  t.is(info?.msg, 'CORS allowed origins: https://ui.example.com');
  t.is(info?.source, 'APP_SERVER__ALLOWED_ORIGINS (environment)');
});

test('ALLOWED_ORIGINS is honoured with a deprecation warning naming the new variable', (t) => {
  const s = sandbox(t);
  const loaded = s.load({ ALLOWED_ORIGINS: 'https://old.example.com' });
  t.deepEqual(loaded.config.server.allowed_origins, ['https://old.example.com']);
  t.is(loaded.sources['server.allowed_origins'], 'ALLOWED_ORIGINS (environment)');
  const warned = warnings(loaded);
  t.is(warned.length, 1);
  t.regex(warned[0].msg, /ALLOWED_ORIGINS is deprecated; use APP_SERVER__ALLOWED_ORIGINS/);

  const both = s.load({
    ALLOWED_ORIGINS: 'https://old.example.com',
    APP_SERVER__ALLOWED_ORIGINS: 'https://new.example.com',
  });
  t.deepEqual(both.config.server.allowed_origins, ['https://new.example.com']);
  t.regex(warnings(both)[0].msg, /ALLOWED_ORIGINS is deprecated and ignored/);

  t.throws(() => s.load({ ALLOWED_ORIGINS: '*' }), { instanceOf: ConfigError, message: /server\.allowed_origins/ });
});

test('originMatcher: exact origins and any-port entries', (t) => {
  const allowed = originMatcher([...DEFAULT_ALLOWED_ORIGINS, 'https://ui.example.com', 'http://cams.lan:8080']);
  t.true(allowed('http://localhost:5173'));
  t.true(allowed('http://localhost'));
  t.true(allowed('HTTP://LocalHost:3000'));
  t.true(allowed('http://127.0.0.1:8080'));
  t.true(allowed('http://[::1]:5173'));
  t.true(allowed('https://ui.example.com'));
  t.true(allowed('https://ui.example.com:443'));
  t.true(allowed('http://cams.lan:8080'));

  t.false(allowed('https://localhost:5173'), 'scheme must match');
  t.false(allowed('http://localhost.evil.com'));
  t.false(allowed('http://evil.com'));
  t.false(allowed('https://ui.example.com:8443'), 'exact entries fix the port');
  t.false(allowed('http://ui.example.com'));
  t.false(allowed('http://cams.lan'));
  t.false(allowed('http://cams.lan:8081'));
  t.false(allowed('null'));
  t.false(allowed(''));
  t.false(allowed('http://localhost:*'));
});

test('originMatcher with no entries allows nothing', (t) => {
  t.false(originMatcher([])('http://localhost:5173'));
});
