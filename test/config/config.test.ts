// The configuration loader: layering, environment variables, validation, limiters, profiles.
// Every test uses temp files and an explicit env object, never the real process env.
import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError, loadConfig, type LoadedConfig } from '../../src/config/index.js';

interface Sandbox {
  dir: string;
  /** Writes a file below the sandbox and returns its absolute path. */
  write(rel: string, text: string): string;
  /** Loads with zm.conf and the default operator file pointed into the sandbox. */
  load(env?: Record<string, string>, configDir?: string): LoadedConfig;
}

function sandbox(t: { teardown(fn: () => void): void }): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    const file = join(dir, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  const load = (env: Record<string, string> = {}, configDir?: string) =>
    loadConfig({
      env: { APP_ZONEMINDER__CONFIG_PATH: join(dir, 'zm', 'zm.conf'), ...env },
      configDir,
      defaultOperatorFile: join(dir, 'etc', 'prod.toml'),
    });
  return { dir, write, load };
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const problems = (loaded: LoadedConfig) => loaded.notices.filter((n) => n.level !== 'info');
const ORIGINS = { APP_SERVER__ALLOWED_ORIGINS: 'https://ui.example.com' };

test('layers: zm.conf < base < profile < operator file < environment', (t) => {
  const s = sandbox(t);
  s.write('zm/zm.conf', 'ZM_DB_NAME=zmdb\nZM_DB_USER=zm-user\nZM_DB_PASS=zm-pass\n');
  const configDir = join(s.dir, 'pkg');
  s.write(
    'pkg/base.toml',
    '[server]\nport = 1001\naddr = "10.0.0.1"\n[db]\nusername = "base-user"\npassword = "base-pass"\n',
  );
  s.write('pkg/dev.toml', '[server]\nport = 1002\naddr = "10.0.0.2"\n[db]\npassword = "profile-pass"\n');
  const operator = s.write('operator.toml', '[server]\nport = 1003\naddr = "10.0.0.3"\n');

  const { config, sources } = s.load(
    { APP_PROFILE: 'dev', APP_CONFIG_FILE: operator, APP_SERVER__ADDR: '10.0.0.4' },
    configDir,
  );

  t.is(config.db.database_name, 'zmdb');
  t.is(sources['db.database_name'], join(s.dir, 'zm', 'zm.conf'));
  t.is(config.db.username, 'base-user');
  t.is(sources['db.username'], join(configDir, 'base.toml'));
  t.is(config.db.password, 'profile-pass');
  t.is(sources['db.password'], join(configDir, 'dev.toml'));
  t.is(config.server.port, 1003);
  t.is(sources['server.port'], operator);
  t.is(config.server.addr, '10.0.0.4');
  t.is(sources['server.addr'], 'APP_SERVER__ADDR (environment)');
  t.is(config.profile, 'dev');
  // Keys no layer sets take the built-in default.
  t.is(config.db.pool_max, 10);
  t.is(sources['db.pool_max'], 'default');
});

test('packaged base.toml alone gives the documented defaults', (t) => {
  const { config, sources } = sandbox(t).load();
  t.is(config.profile, null);
  t.is(config.server.port, 8080);
  t.is(config.server.addr, '0.0.0.0');
  t.is(config.server.explorer_path, '/swagger-ui');
  t.is(config.server.middleware.body_limit_bytes, 2097152);
  t.deepEqual(config.server.middleware.rate_limit, { enabled: false, rate_limit_period_secs: 1, burst_size: 120 });
  t.deepEqual(config.auth.rate_limit, { enabled: true, rate_limit_period_secs: 2, burst_size: 10 });
  t.is(config.server.acme.challenge, 'tls-alpn-01');
  t.deepEqual(
    {
      host: config.db.host,
      port: config.db.port,
      socket: config.db.socket,
      user: config.db.username,
      name: config.db.database_name,
    },
    { host: 'localhost', port: 3306, socket: null, user: 'zmuser', name: 'zm' },
  );
  t.is(config.zoneminder.path_socks, '/run/zm');
  t.is(config.maintenance.telemetry.interval_seconds, 1209600);
  t.is(sources['server.port'], 'config/base.toml');
  t.is(sources['db.host'], 'default');
});

test('APP_SERVER__PORT=9000 moves the port', (t) => {
  const { config, sources } = sandbox(t).load({ APP_SERVER__PORT: '9000' });
  t.is(config.server.port, 9000);
  t.is(sources['server.port'], 'APP_SERVER__PORT (environment)');
});

test('environment strings are coerced by the key type', (t) => {
  const { config } = sandbox(t).load({
    APP_SERVER__MIDDLEWARE__COMPRESSION: 'off',
    APP_DAEMON__ENABLED: 'YES',
    APP_RETENTION__ENABLED: '1',
    APP_SERVER__MIDDLEWARE__TRUST_PROXY_HEADERS: 'True',
    APP_LOG__LEVEL: 'DEBUG',
    APP_SERVER__MIDDLEWARE__BODY_LIMIT_BYTES: ' 4096 ',
    APP_DB__SOCKET: '/run/mysqld/mysqld.sock',
    APP_STREAMING__WEBRTC__TURN__PASSWORD: '',
  });
  t.false(config.server.middleware.compression);
  t.true(config.daemon.enabled);
  t.true(config.retention.enabled);
  t.true(config.server.middleware.trust_proxy_headers);
  t.is(config.log.level, 'debug');
  t.is(config.server.middleware.body_limit_bytes, 4096);
  t.is(config.db.socket, '/run/mysqld/mysqld.sock');
  t.is(config.streaming.webrtc.turn.password, '');
});

test('a bad boolean in the environment names variable and allowed words', (t) => {
  const err = configError(() => sandbox(t).load({ APP_DAEMON__ENABLED: 'maybe' }));
  t.is(err.key, 'daemon.enabled');
  t.is(err.source, 'APP_DAEMON__ENABLED (environment)');
  t.regex(err.message, /must be a boolean .*yes\/no.*got "maybe"/);
});

test('indexed environment list replaces the whole list', (t) => {
  const s = sandbox(t);
  s.write('etc/prod.toml', '[server.acme]\ndomains = ["old.example.com", "older.example.com", "oldest.example.com"]\n');
  const { config, sources } = s.load({
    APP_SERVER__ACME__DOMAINS__1: 'b.example.com',
    APP_SERVER__ACME__DOMAINS__0: 'a.example.com',
    APP_SERVER__ACME__CONTACT_EMAILS: 'ops@example.com, admin@example.com',
  });
  t.deepEqual(config.server.acme.domains, ['a.example.com', 'b.example.com']);
  t.is(sources['server.acme.domains'], 'APP_SERVER__ACME__DOMAINS__0..1 (environment)');
  t.deepEqual(config.server.acme.contact_emails, ['ops@example.com', 'admin@example.com']);
});

test('indexed list with a gap, or a bad item, is refused naming the variable', (t) => {
  const s = sandbox(t);
  const gap = configError(() =>
    s.load({ APP_SERVER__ACME__DOMAINS__0: 'a.example.com', APP_SERVER__ACME__DOMAINS__2: 'c.example.com' }),
  );
  t.is(gap.source, 'APP_SERVER__ACME__DOMAINS__2 (environment)');
  t.regex(gap.message, /missing APP_SERVER__ACME__DOMAINS__1/);
  const bad = configError(() => s.load({ APP_SERVER__ACME__CONTACT_EMAILS__0: 'not-an-email' }));
  t.is(bad.key, 'server.acme.contact_emails');
  t.is(bad.source, 'APP_SERVER__ACME__CONTACT_EMAILS__0 (environment)');
  t.regex(bad.message, /email/);
});

test('invalid values name key, source and what is allowed in one line', (t) => {
  const s = sandbox(t);
  const port = configError(() => s.load({ APP_SERVER__PORT: '70000' }));
  t.is(
    port.message,
    'invalid configuration: server.port (from APP_SERVER__PORT (environment)): must be an integer 0..65535 (got "70000")',
  );

  const operator = s.write('etc/prod.toml', '[server.middleware]\nbody_limit_bytes = 0\n');
  const body = configError(() => s.load());
  t.is(body.key, 'server.middleware.body_limit_bytes');
  t.is(body.source, operator);
  t.regex(body.message, /must be a positive integer/);
  t.false(body.message.includes('\n'));

  s.write('etc/prod.toml', '[log]\nlevel = "loud"\n');
  t.regex(configError(() => s.load()).message, /log\.level .*must be one of trace, debug, info, warn, error, fatal/);

  s.write('etc/prod.toml', '[server.acme]\nchallenge = "dns-01"\n');
  t.regex(configError(() => s.load()).message, /server\.acme\.challenge .*must be one of tls-alpn-01, http-01/);

  s.write('etc/prod.toml', '[server]\nexplorer_path = "/api/docs"\n');
  t.regex(configError(() => s.load()).message, /server\.explorer_path .*not \/api/);

  s.write('etc/prod.toml', '[server.middleware]\ncompression = "yes"\n');
  t.regex(configError(() => s.load()).message, /server\.middleware\.compression .*must be a boolean/);

  s.write('etc/prod.toml', '');
  const dbPort = configError(() => s.load({ APP_DB__PORT: '33o6' }));
  t.is(dbPort.key, 'db.port');
  t.regex(dbPort.message, /must be an integer 1\.\.65535 \(got "33o6"\)/);

  // A live playlist must span at least three target durations (RFC 8216bis §6.2.2).
  const window = configError(() => s.load({ APP_STREAMING__HLS__PLAYLIST_SIZE: '2' }));
  t.is(window.key, 'streaming.hls.playlist_size');
  t.regex(window.message, /must be an integer 3\.\.100 \(got "2"\)/);
  t.is(s.load({ APP_STREAMING__HLS__PLAYLIST_SIZE: '3' }).config.streaming.hls.playlist_size, 3);
});

test('secrets are not echoed in error messages', (t) => {
  const s = sandbox(t);
  s.write('etc/prod.toml', '[db]\npassword = 12345\n');
  const err = configError(() => s.load());
  t.is(err.key, 'db.password');
  t.false(err.message.includes('12345'));
});

test('a TOML syntax error names the file and the line', (t) => {
  const s = sandbox(t);
  const file = s.write('etc/prod.toml', '[server]\nport = 8081\naddr = \n');
  const err = configError(() => s.load());
  t.is(err.source, `${file}, line 3`);
  t.true(err.message.startsWith(`invalid configuration: TOML syntax (from ${file}, line 3):`));
});

test('a setting given where a table belongs is refused', (t) => {
  const s = sandbox(t);
  s.write('etc/prod.toml', 'server = 5\n');
  t.is(configError(() => s.load()).key, 'server');
});

test('TLS and ACME together are refused as mutually exclusive', (t) => {
  const s = sandbox(t);
  const err = configError(() =>
    s.load({
      APP_SERVER__TLS__ENABLED: 'true',
      APP_SERVER__TLS__CERT_PATH: '/etc/ssl/c.pem',
      APP_SERVER__TLS__KEY_PATH: '/etc/ssl/k.pem',
      APP_SERVER__ACME__ENABLED: 'true',
      APP_SERVER__ACME__DOMAINS: 'cams.example.com',
    }),
  );
  t.is(err.key, 'server.tls.enabled');
  t.is(err.source, 'APP_SERVER__TLS__ENABLED (environment)');
  t.regex(err.message, /mutually exclusive/);
});

test('TLS needs both paths and ACME needs domains', (t) => {
  const s = sandbox(t);
  t.is(
    configError(() => s.load({ APP_SERVER__TLS__ENABLED: 'true', APP_SERVER__TLS__KEY_PATH: '/k.pem' })).key,
    'server.tls.cert_path',
  );
  t.is(
    configError(() => s.load({ APP_SERVER__TLS__ENABLED: 'true', APP_SERVER__TLS__CERT_PATH: '/c.pem' })).key,
    'server.tls.key_path',
  );
  t.is(configError(() => s.load({ APP_SERVER__ACME__ENABLED: 'true' })).key, 'server.acme.domains');
  const ok = s.load({
    APP_SERVER__ACME__ENABLED: 'true',
    APP_SERVER__ACME__DOMAINS__0: 'cams.example.com',
    APP_SERVER__ACME__CHALLENGE: 'http-01',
  });
  t.is(ok.config.server.acme.challenge, 'http-01');
  t.true(ok.config.server.acme.enabled);
});

test('db.pool_min above db.pool_max is refused', (t) => {
  const err = configError(() => sandbox(t).load({ APP_DB__POOL_MIN: '20' }));
  t.is(err.key, 'db.pool_min');
  t.regex(err.message, /must not exceed db\.pool_max \(10\)/);
});

test('rate_limit_per_second is an alias of rate_limit_period_secs, with a deprecation warning', (t) => {
  const s = sandbox(t);
  const operator = s.write('etc/prod.toml', '[auth.rate_limit]\nrate_limit_per_second = 5\n');
  const loaded = s.load({ ...ORIGINS, APP_SERVER__MIDDLEWARE__RATE_LIMIT__RATE_LIMIT_PER_SECOND: '3' });
  t.is(loaded.config.auth.rate_limit.rate_limit_period_secs, 5);
  t.is(loaded.sources['auth.rate_limit.rate_limit_period_secs'], operator);
  t.is(loaded.config.server.middleware.rate_limit.rate_limit_period_secs, 3);
  const warned = problems(loaded).filter((n) => n.level === 'warn' && /deprecated/.test(n.msg));
  t.deepEqual(warned.map((n) => n.key).sort(), [
    'auth.rate_limit.rate_limit_per_second',
    'server.middleware.rate_limit.rate_limit_per_second',
  ]);
});

test('when both limiter names are given the new one wins', (t) => {
  const s = sandbox(t);
  s.write('etc/prod.toml', '[auth.rate_limit]\nrate_limit_per_second = 5\nrate_limit_period_secs = 7\n');
  const loaded = s.load(ORIGINS);
  t.is(loaded.config.auth.rate_limit.rate_limit_period_secs, 7);
  t.is(problems(loaded).length, 1);
  t.regex(problems(loaded)[0].msg, /rate_limit_per_second is deprecated and ignored/);
});

test('burst_size 0 is replaced with a usable value and reported as an error naming the setting', (t) => {
  const s = sandbox(t);
  const operator = s.write('etc/prod.toml', '[server.middleware.rate_limit]\nenabled = true\nburst_size = 0\n');
  const loaded = s.load({ ...ORIGINS, APP_AUTH__RATE_LIMIT__BURST_SIZE: '0' });
  t.is(loaded.config.server.middleware.rate_limit.burst_size, 120);
  t.is(loaded.config.auth.rate_limit.burst_size, 10);
  const errors = loaded.notices.filter((n) => n.level === 'error');
  t.deepEqual(
    errors.map((n) => [n.key, n.source]),
    [
      ['server.middleware.rate_limit.burst_size', operator],
      ['auth.rate_limit.burst_size', 'APP_AUTH__RATE_LIMIT__BURST_SIZE (environment)'],
    ],
  );
  t.regex(errors[0].msg, /server\.middleware\.rate_limit\.burst_size/);
});

test('stale rtsp_proxy and go2rtc settings are ignored without a word', (t) => {
  const s = sandbox(t);
  s.write(
    'etc/prod.toml',
    [
      '[streaming]',
      'go2rtc_url = "http://127.0.0.1:1984"',
      '[streaming.rtsp_proxy]',
      'enabled = true',
      'port = 8554',
      '[streaming.go2rtc]',
      'url = "http://127.0.0.1:1984"',
      '[streaming.webrtc.turn]',
      'enabled = false',
    ].join('\n'),
  );
  const loaded = s.load({
    ...ORIGINS,
    APP_STREAMING__GO2RTC_URL: 'http://x',
    APP_STREAMING__RTSP_PROXY__ENABLED: 'true',
  });
  t.deepEqual(problems(loaded), []);
  t.false(loaded.config.streaming.webrtc.turn.enabled);
});

test('unknown keys are warned about, naming key and source, and do not fail', (t) => {
  const s = sandbox(t);
  const operator = s.write('etc/prod.toml', '[server]\nprot = 8081\n[shiny]\nnew = true\n');
  const loaded = s.load({ ...ORIGINS, APP_SERVER_PORT: '9000' });
  t.deepEqual(
    problems(loaded).map((n) => [n.level, n.key, n.source]),
    [
      ['warn', 'server.prot', operator],
      ['warn', 'shiny', operator],
      ['warn', 'server_port', 'APP_SERVER_PORT (environment)'],
    ],
  );
  t.is(loaded.config.server.port, 8080);
});

test('keys named like Object properties are unknown keys, not a crash', (t) => {
  const s = sandbox(t);
  s.write('etc/prod.toml', 'constructor = 1\n[server]\ntoString = "x"\n');
  const loaded = s.load({ ...ORIGINS, APP_CONSTRUCTOR: '1' });
  t.deepEqual(
    problems(loaded).map((n) => n.key),
    ['constructor', 'server.toString', 'constructor'],
  );
});

test('APP_PROFILE=prod turns the global limiter on', (t) => {
  const { config, sources } = sandbox(t).load({ APP_PROFILE: 'prod' });
  t.is(config.profile, 'prod');
  t.deepEqual(config.server.middleware.rate_limit, { enabled: true, rate_limit_period_secs: 1, burst_size: 120 });
  t.is(sources['server.middleware.rate_limit.enabled'], 'config/prod.toml');
});

test('the dev, test and test-db profiles apply', (t) => {
  const s = sandbox(t);
  t.is(s.load({ APP_PROFILE: 'dev' }).config.log.level, 'debug');
  for (const profile of ['test', 'test-db']) {
    const { config } = s.load({ APP_PROFILE: profile });
    t.is(config.log.level, 'warn');
    t.is(config.server.port, 0);
    t.is(config.profile, profile as 'test' | 'test-db');
  }
});

test('an unknown APP_PROFILE is refused', (t) => {
  const err = configError(() => sandbox(t).load({ APP_PROFILE: 'staging' }));
  t.is(err.key, 'APP_PROFILE');
  t.regex(err.message, /must be one of dev, test, test-db, prod/);
});

test('a missing default operator file is fine, a missing APP_CONFIG_FILE is not', (t) => {
  const s = sandbox(t);
  const loaded = s.load();
  t.true(loaded.notices.some((n) => n.level === 'info' && n.source === join(s.dir, 'etc', 'prod.toml')));
  const err = configError(() => s.load({ APP_CONFIG_FILE: join(s.dir, 'nope.toml') }));
  t.is(err.key, 'APP_CONFIG_FILE');
});

test('the zm.conf location can come from the operator file', (t) => {
  const s = sandbox(t);
  const zmConf = s.write('other/zm.conf', 'ZM_DB_NAME=elsewhere\n');
  s.write('etc/prod.toml', `[zoneminder]\nconfig_path = "${zmConf}"\n`);
  // Loaded without the sandbox helper, which would set APP_ZONEMINDER__CONFIG_PATH.
  const { config, sources } = loadConfig({ env: {}, defaultOperatorFile: join(s.dir, 'etc', 'prod.toml') });
  t.is(config.db.database_name, 'elsewhere');
  t.is(sources['db.database_name'], zmConf);
});
