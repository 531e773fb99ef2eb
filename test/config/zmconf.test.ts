// ZoneMinder's zm.conf + conf.d as the lowest configuration layer.
import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError, loadConfig, parseDbHost, parseZmConf, type LoadedConfig } from '../../src/config/index.js';

function sandbox(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-zmconf-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const zmConf = join(dir, 'zm', 'zm.conf');
  return {
    dir,
    zmConf,
    write(rel: string, text: string): string {
      const file = join(dir, rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    load(env: Record<string, string> = {}): LoadedConfig {
      return loadConfig({
        env: { APP_ZONEMINDER__CONFIG_PATH: zmConf, APP_SERVER__ALLOWED_ORIGINS: 'http://localhost:*', ...env },
        defaultOperatorFile: join(dir, 'etc', 'prod.toml'),
      });
    },
  };
}

test('parseZmConf: comments, whitespace, quotes, case and continuation', (t) => {
  const { values, badLines } = parseZmConf(
    [
      '# ZoneMinder configuration',
      '',
      '   ZM_DB_HOST =  db.example.com:3307  ',
      'zm_db_name="zm_main"',
      "ZM_DB_USER = 'zm user'",
      'ZM_DB_PASS=a"b',
      '  # indented comment = ignored',
      'ZM_PATH_SOCKS=/run/\\',
      'zm',
      'not a setting',
      'ZM_EMPTY=',
    ].join('\n'),
  );
  t.deepEqual(Object.fromEntries(values), {
    ZM_DB_HOST: 'db.example.com:3307',
    ZM_DB_NAME: 'zm_main',
    ZM_DB_USER: 'zm user',
    ZM_DB_PASS: 'a"b',
    ZM_PATH_SOCKS: '/run/zm',
    ZM_EMPTY: '',
  });
  t.deepEqual(badLines, [10]);
});

test('parseDbHost: host, host:port and host:/socket', (t) => {
  t.deepEqual(parseDbHost('localhost'), { host: 'localhost', port: 3306, socket: null });
  t.deepEqual(parseDbHost('db.example.com:3307'), { host: 'db.example.com', port: 3307, socket: null });
  t.deepEqual(parseDbHost('localhost:/run/mysqld/mysqld.sock'), {
    host: 'localhost',
    port: 3306,
    socket: '/run/mysqld/mysqld.sock',
  });
  t.deepEqual(parseDbHost('[::1]:3308'), { host: '::1', port: 3308, socket: null });
  t.is(parseDbHost('db:port'), null);
  t.is(parseDbHost('db:70000'), null);
});

test('ZM_DB_HOST forms reach db.host, db.port and db.socket', (t) => {
  const s = sandbox(t);
  const cases: Array<[string, { host: string; port: number; socket: string | null }]> = [
    ['localhost', { host: 'localhost', port: 3306, socket: null }],
    ['10.1.2.3:3307', { host: '10.1.2.3', port: 3307, socket: null }],
    ['localhost:/var/run/mysqld/mysqld.sock', { host: 'localhost', port: 3306, socket: '/var/run/mysqld/mysqld.sock' }],
  ];
  for (const [value, expected] of cases) {
    s.write('zm/zm.conf', `ZM_DB_HOST=${value}\n`);
    const { config, sources } = s.load();
    t.deepEqual({ host: config.db.host, port: config.db.port, socket: config.db.socket }, expected, value);
    t.is(sources['db.port'], s.zmConf);
  }
});

test('conf.d files are read after zm.conf in name order, later ones winning', (t) => {
  const s = sandbox(t);
  s.write(
    'zm/zm.conf',
    'ZM_DB_HOST=localhost\nZM_DB_NAME=zm\nZM_DB_USER=zmuser\nZM_DB_PASS=zmpass\nZM_PATH_MAP=/dev/shm\n',
  );
  s.write('zm/conf.d/01-system-paths.conf', 'ZM_PATH_SOCKS=/run/zm-a\nZM_PATH_MAP=/dev/shm/a\n');
  const second = s.write('zm/conf.d/02-x.conf', 'ZM_PATH_SOCKS=/run/zm-b\nzm_db_pass="s3cret"\n');
  s.write('zm/conf.d/10-later.conf', 'ZM_DB_USER=late\n');
  s.write('zm/conf.d/99-ignored.conf.bak', 'ZM_DB_USER=never\n');
  const { config, sources } = s.load();
  t.is(config.zoneminder.path_socks, '/run/zm-b');
  t.is(sources['zoneminder.path_socks'], second);
  t.is(config.zoneminder.path_map, '/dev/shm/a');
  t.is(config.db.password, 's3cret');
  t.is(sources['db.password'], second);
  t.is(config.db.username, 'late');
  t.is(config.db.database_name, 'zm');
});

test('a relative ZM_DIR_EVENTS is relative to ZM_PATH_WEB', (t) => {
  const s = sandbox(t);
  s.write('zm/zm.conf', 'ZM_PATH_WEB=/usr/share/zoneminder/www\nZM_DIR_EVENTS=events\n');
  t.is(s.load().config.zoneminder.dir_events, '/usr/share/zoneminder/www/events');
  s.write('zm/zm.conf', 'ZM_PATH_WEB=/usr/share/zoneminder/www\nZM_DIR_EVENTS=/srv/events\n');
  t.is(s.load().config.zoneminder.dir_events, '/srv/events');
});

test('TOML and environment override zm.conf values', (t) => {
  const s = sandbox(t);
  s.write('zm/zm.conf', 'ZM_DB_USER=zmuser\nZM_PATH_SOCKS=/run/zm\n');
  s.write('etc/prod.toml', '[zoneminder]\npath_socks = "/srv/socks"\n');
  const { config, sources } = s.load({ APP_DB__USERNAME: 'other' });
  t.is(config.db.username, 'other');
  t.is(sources['db.username'], 'APP_DB__USERNAME (environment)');
  t.is(config.zoneminder.path_socks, '/srv/socks');
});

test("a host set above zm.conf drops zm.conf's socket", (t) => {
  const s = sandbox(t);
  s.write('zm/zm.conf', 'ZM_DB_HOST=localhost:/run/mysqld/mysqld.sock\n');
  const loaded = s.load({ APP_DB__HOST: 'db.example.com' });
  t.is(loaded.config.db.socket, null);
  t.is(loaded.config.db.host, 'db.example.com');
  t.true(loaded.notices.some((n) => n.key === 'db.socket' && n.level === 'info'));
});

test('a bad ZM_DB_HOST names the variable and the file', (t) => {
  const s = sandbox(t);
  const file = s.write('zm/conf.d/02-x.conf', 'ZM_DB_HOST=db:notaport\n');
  s.write('zm/zm.conf', 'ZM_DB_HOST=localhost\n');
  const err = t.throws(() => s.load(), { instanceOf: ConfigError }) as ConfigError;
  t.is(err.key, 'ZM_DB_HOST');
  t.is(err.source, file);
  t.regex(err.message, /host, host:port or host:\/path\/to\.sock/);
});

test('a bad zm.conf path value names the ZM_ variable', (t) => {
  const s = sandbox(t);
  const file = s.write('zm/zm.conf', 'ZM_PATH_SOCKS=run/zm\n');
  const err = t.throws(() => s.load(), { instanceOf: ConfigError }) as ConfigError;
  t.is(err.message, `invalid configuration: ZM_PATH_SOCKS (from ${file}): must be an absolute path (got "run/zm")`);
});

test('a missing zm.conf is an info notice, an unreadable one a warning', (t) => {
  const s = sandbox(t);
  const missing = s.load();
  t.true(missing.notices.some((n) => n.level === 'info' && n.source === s.zmConf));
  t.false(missing.notices.some((n) => n.level === 'warn' || n.level === 'error'));
  t.is(missing.sources['db.host'], 'default');

  mkdirSync(s.zmConf, { recursive: true }); // a directory where the file should be: unreadable
  const unreadable = s.load();
  t.true(unreadable.notices.some((n) => n.level === 'warn' && n.source === s.zmConf));
});

test('zm.conf provides database settings, paths and the multi-server identity only', (t) => {
  const s = sandbox(t);
  s.write('zm/zm.conf', 'ZM_SERVER_HOST=cams\nZM_PATH_LOGS=/var/log/zm\nZM_DB_NAME=zm\n');
  const loaded = s.load();
  t.false(loaded.notices.some((n) => n.level === 'warn'));
  t.deepEqual(
    Object.entries(loaded.sources)
      .filter(([, source]) => source === s.zmConf)
      .map(([key]) => key)
      .sort(),
    ['cluster.server_name', 'db.database_name'],
  );
  t.is(loaded.config.cluster.server_name, 'cams');
});

test('ZM_SERVER_ID and ZM_SERVER_NAME name this host in a multi-server install', (t) => {
  const s = sandbox(t);
  s.write('zm/zm.conf', 'ZM_SERVER_ID=3\nZM_SERVER_NAME=bravo\nZM_SERVER_HOST=old\n');
  const loaded = s.load();
  t.is(loaded.config.cluster.server_id, 3);
  t.is(loaded.config.cluster.server_name, 'bravo');
  const bad = sandbox(t);
  const file = bad.write('zm/zm.conf', 'ZM_SERVER_ID=two\n');
  const err = t.throws(() => bad.load(), { instanceOf: ConfigError }) as ConfigError;
  t.is(err.key, 'ZM_SERVER_ID');
  t.is(err.source, file);
});

test('without a server id or name a host is a single server', (t) => {
  const loaded = sandbox(t).load();
  t.is(loaded.config.cluster.server_id, 0);
  t.is(loaded.config.cluster.server_name, '');
});
