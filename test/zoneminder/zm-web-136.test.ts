// ZoneMinder 1.36's own web UI and API beside zmgate: Debian's package's PHP tree served as an
// operator serves it (Debian's apache2 with mod_php, the package's own conf-available/zoneminder.conf
// included as is, the API's .htaccess rewrite rules in force) on loopback, against a throwaway
// 1.36.33 database, with authentication on.
// A user limited to monitor 1 by Users.MonitorIds sees only monitor 1 in ZoneMinder's
// /zm/api/monitors.json and its console, before zmgate starts, after v3 edits of that user and of
// the monitors, and after v3 permission writes (which ZoneMinder's UI then shows as they were meant).
// And the other way: an edit of MonitorIds made through ZoneMinder's own API is what v3 answers.
//
// Needs root, Debian's zoneminder package (as the real-zmc tests), apache2 and libapache2-mod-php:
// skipped with the reason otherwise.
import test from 'ava';
import bcrypt from 'bcryptjs';
import { type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { freePort } from '../helpers/pebble.js';
import { RealZm, realZmcUnavailable, waitFor } from '../helpers/real-zmc.js';
import { caller, login, type Call } from '../helpers/rest.js';
import { database136 } from '../helpers/zm136.js';

const WEB = '/usr/share/zoneminder/www';
const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const ZM_APACHE_CONF = '/etc/apache2/conf-available/zoneminder.conf';
const modPhp = existsSync(MODULES) ? readdirSync(MODULES).find((f) => /^libphp[\d.]*\.so$/.test(f)) : undefined;
const setup = 'bash scripts/setup.sh installs it';
const unavailable =
  realZmcUnavailable() ??
  (existsSync(APACHE) ? null : `${APACHE} is missing (apache2; ${setup})`) ??
  (modPhp ? null : `no ${MODULES}/libphp*.so (libapache2-mod-php; ${setup})`) ??
  (existsSync(`${WEB}/index.php`) && existsSync(ZM_APACHE_CONF)
    ? null
    : `${WEB} or ${ZM_APACHE_CONF} is missing (Debian package zoneminder)`);
if (unavailable) console.log(`# ZoneMinder web tests skipped: ${unavailable}`);
const serial = unavailable ? test.serial.skip : test.serial;

let db: FreshDatabase;
let zm: RealZm;
let apache: ChildProcess;
let errorLog = '';
let zmUrl: string;
let app: TestApp;
let call: Call;
let limitedId: number;
/** The limited user's permission rows by monitor, as v3 listed them once zmgate started. */
const rowOf: Record<number, { id: number; monitor_id: number; permission: string }> = {};

const sql = <T = any>(statement: string, params: unknown[] = []) => db.db.query<T>(statement, params, db.name);

const monitorIds = async () =>
  (await sql<{ MonitorIds: string }>('SELECT MonitorIds FROM Users WHERE Id = ?', [limitedId]))[0].MonitorIds;

/** A token from ZoneMinder's own API login (POST /zm/api/host/login.json). */
async function zmLogin(user: string, pass: string): Promise<string> {
  const res = await fetch(`${zmUrl}/api/host/login.json`, {
    method: 'POST',
    body: new URLSearchParams({ user, pass }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ZoneMinder login ${res.status}: ${text.slice(0, 500)}\n${apacheErrors()}`);
  const body = JSON.parse(text) as { access_token?: string };
  if (!body.access_token) throw new Error(`ZoneMinder login gave no token: ${text.slice(0, 500)}`);
  return body.access_token;
}

/** Monitor ids ZoneMinder's own API lists to the limited user. */
async function zmApiMonitors(): Promise<number[]> {
  const token = await zmLogin('limited', 'limited');
  const res = await fetch(`${zmUrl}/api/monitors.json?token=${encodeURIComponent(token)}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`monitors.json ${res.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as { monitors: Array<{ Monitor: { Id: string | number } }> };
  return body.monitors.map((m) => Number(m.Monitor.Id)).sort();
}

/** Monitor names ZoneMinder's console page shows the limited user (its monitor rows link to watch?mid=N). */
async function zmConsoleMonitors(): Promise<number[]> {
  const token = await zmLogin('limited', 'limited');
  const res = await fetch(`${zmUrl}/index.php?view=console&token=${encodeURIComponent(token)}`);
  const html = await res.text();
  if (res.status !== 200) throw new Error(`console ${res.status}: ${html.slice(0, 500)}`);
  if (!html.includes('consoleTable')) throw new Error(`not the console: ${html.slice(0, 1000)}`);
  return [...new Set([...html.matchAll(/view=watch&(?:amp;)?mid=(\d+)/g)].map((m) => Number(m[1])))].sort();
}

/** What v3 lists to the limited user. */
async function v3Monitors(): Promise<number[]> {
  const as = caller(app, await login(app, 'limited'));
  return ((await as('GET', '/monitors')).body.items as Array<{ id: number }>).map((m) => m.id).sort();
}

test.before(async () => {
  if (unavailable) return;
  db = await database136('zmweb');
  zm = new RealZm(db, { forWebServer: true });
  await zm.freshen();
  await sql("UPDATE Config SET Value = '1' WHERE Name IN ('ZM_OPT_USE_AUTH', 'ZM_OPT_USE_API')");
  await sql("UPDATE Config SET Value = 'zmweb-test-secret-0123456789' WHERE Name = 'ZM_AUTH_HASH_SECRET'");
  await sql(
    "INSERT INTO Monitors (Id, Name, Type, Function, Enabled, Width, Height) VALUES (1, 'Drive', 'Ffmpeg', 'Modect', 1, 640, 360), (2, 'Gate', 'Ffmpeg', 'Record', 1, 640, 360)",
  );
  await sql(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, System) VALUES ('adm', ?, 1, 1, 'View', 'Edit', 'Edit', 'Edit')",
    [bcrypt.hashSync('adm', 4)],
  );
  await sql(
    "INSERT INTO Users (Username, Password, Enabled, APIEnabled, Stream, Events, Monitors, MonitorIds) VALUES ('limited', ?, 1, 1, 'View', 'View', 'View', '1')",
    [bcrypt.hashSync('limited', 4)],
  );
  limitedId = Number((await sql<{ Id: number }>("SELECT Id FROM Users WHERE Username = 'limited'"))[0].Id);

  // apache2 as the operator's, but on a free loopback port and with its own files under the test's
  // directory; its workers run as www-data (apache refuses root), so that directory is opened to them.
  const base = zm.paths.base;
  const port = await freePort();
  zmUrl = `http://127.0.0.1:${port}/zm`;
  const conf = path.join(base, 'apache2.conf');
  writeFileSync(
    conf,
    [
      `ServerRoot ${base}`,
      `DefaultRuntimeDir ${base}`,
      `PidFile ${base}/apache2.pid`,
      `ErrorLog ${base}/apache2-error.log`,
      'LogLevel warn',
      `Listen 127.0.0.1:${port}`,
      'ServerName 127.0.0.1',
      'User www-data',
      'Group www-data',
      ...['mpm_prefork', 'authz_core', 'alias', 'dir', 'mime', 'rewrite', 'env'].map(
        (m) => `LoadModule ${m}_module ${MODULES}/mod_${m}.so`,
      ),
      `LoadModule php_module ${MODULES}/${modPhp}`,
      'TypesConfig /etc/mime.types',
      '<FilesMatch "\\.php$">',
      '  SetHandler application/x-httpd-php',
      '</FilesMatch>',
      `DocumentRoot ${base}`,
      `Include ${ZM_APACHE_CONF}`,
      // Debian's package leaves out ZoneMinder's .htaccess files, so its API (a CakePHP application)
      // answers 404 until the operator routes /zm/api to its front controller, as here.
      `<Directory ${WEB}/api>`,
      '  RewriteEngine On',
      '  RewriteBase /zm/api/',
      '  RewriteCond %{REQUEST_FILENAME} !-f',
      '  RewriteRule ^ app/webroot/index.php [L]',
      '</Directory>',
      '',
    ].join('\n'),
  );
  // In a process group of its own: apache2 signals its whole group when it stops.
  apache = zm.spawn(APACHE, ['-f', conf, '-DFOREGROUND'], { detached: true });
  const keep = (d: Buffer) => (errorLog = `${errorLog}${d.toString()}`.slice(-8000));
  apache.stdout!.on('data', keep);
  apache.stderr!.on('data', keep);
  process.once('exit', () => stopApache('SIGKILL'));
  await waitFor('the ZoneMinder web server', 15_000, async () => {
    try {
      return (await fetch(`${zmUrl}/api/host/getVersion.json`)).status > 0;
    } catch {
      return false;
    }
  });
});

function stopApache(signal: NodeJS.Signals): void {
  try {
    if (apache?.pid) process.kill(-apache.pid, signal);
  } catch {
    // already gone
  }
}

/** apache's own output and the tail of its error log (PHP's errors land there), for failures. */
function apacheErrors(): string {
  const file = path.join(zm.paths.base, 'apache2-error.log');
  const log = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return `${errorLog}\n${log.slice(-4000)}`;
}

test.after.always(async () => {
  await app?.close();
  stopApache('SIGTERM');
  await zm?.stop();
});

serial('before zmgate: ZoneMinder 1.36 shows the limited user only monitor 1 (API and console)', async (t) => {
  t.deepEqual(await zmApiMonitors(), [1]);
  t.deepEqual(await zmConsoleMonitors(), [1]);
  // The admin sees both, so the console's list is not simply one row.
  const admToken = await zmLogin('adm', 'adm');
  const res = await fetch(`${zmUrl}/api/monitors.json?token=${encodeURIComponent(admToken)}`);
  t.is(((await res.json()) as { monitors: unknown[] }).monitors.length, 2);
});

serial('after v3 edits of that user and of both monitors, ZoneMinder still shows only monitor 1', async (t) => {
  app = await startTestApp({
    db,
    env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false', APP_DB__MIGRATE_ON_START: 'true' },
  });
  call = caller(app, await login(app, 'adm'));
  t.deepEqual(await v3Monitors(), [1]);
  // 1.36 has no Email column: a field it has.
  const put = await call('PUT', `/users/${limitedId}`, { language: 'en_gb', max_bandwidth: 'high' });
  t.is(put.status, 200, JSON.stringify(put.body));
  t.is((await call('PATCH', '/monitors/1', { name: 'Driveway' })).status, 200);
  t.is((await call('PATCH', '/monitors/2', { name: 'Gate east' })).status, 200);
  for (const r of ((await call('GET', '/monitors-permissions')).body.items as any[]).filter(
    (r) => r.user_id === limitedId,
  ))
    rowOf[r.monitor_id] = r;
  t.deepEqual(
    Object.values(rowOf).map((r) => [r.monitor_id, r.permission]),
    [
      [1, 'View'],
      [2, 'None'],
    ],
  );
  t.is(await monitorIds(), '1');
  t.deepEqual(await zmApiMonitors(), [1]);
  t.deepEqual(await zmConsoleMonitors(), [1]);
  t.deepEqual(await v3Monitors(), [1]);
});

serial('a v3 permission write is what ZoneMinder then shows; undone, monitor 1 only again', async (t) => {
  const patch = async (monitor: number, permission: string) => {
    const res = await call('PATCH', `/monitors-permissions/${rowOf[monitor].id}`, { permission });
    t.is(res.status, 200, JSON.stringify(res.body));
  };
  await patch(2, 'View');
  await patch(1, 'None');
  t.is(await monitorIds(), '2');
  t.deepEqual(await zmApiMonitors(), [2]);
  t.deepEqual(await zmConsoleMonitors(), [2]);
  t.deepEqual(await v3Monitors(), [2]);
  await patch(1, 'View');
  await patch(2, 'None');
  t.is(await monitorIds(), '1');
  t.deepEqual(await zmApiMonitors(), [1]);
  t.deepEqual(await zmConsoleMonitors(), [1]);
  t.deepEqual(await v3Monitors(), [1]);
});

serial("MonitorIds changed through ZoneMinder's own API: v3 answers by it, and a v3 write keeps it", async (t) => {
  const admToken = await zmLogin('adm', 'adm');
  const res = await fetch(`${zmUrl}/api/users/${limitedId}.json?token=${encodeURIComponent(admToken)}`, {
    method: 'PUT',
    body: new URLSearchParams({ 'User[MonitorIds]': '2' }),
  });
  t.is(res.status, 200, await res.text());
  t.is(await monitorIds(), '2');
  t.deepEqual(await zmApiMonitors(), [2]);
  // zmgate's ACL reads MonitorIds itself; what it read is kept a few seconds.
  await waitFor('v3 to show monitor 2 only', 15_000, async () => JSON.stringify(await v3Monitors()) === '[2]');
  // Monitor 2 shown through v3 as well (already so): the write must not bring back monitor 1,
  // which ZoneMinder's admin hid after zmgate last wrote this user's rows.
  const shown = await call('PATCH', `/monitors-permissions/${rowOf[2].id}`, { permission: 'View' });
  t.is(shown.status, 200, JSON.stringify(shown.body));
  t.is(await monitorIds(), '2');
  t.deepEqual(await zmApiMonitors(), [2]);
  const perms = ((await call('GET', '/monitors-permissions')).body.items as any[]).filter(
    (r) => r.user_id === limitedId,
  );
  t.deepEqual(perms.map((r) => [r.monitor_id, r.permission]).sort(), [
    [1, 'None'],
    [2, 'View'],
  ]);
  t.deepEqual(await v3Monitors(), [2]);

  // Every monitor shown by ZoneMinder's admin (an empty list): the rows follow.
  const all = await fetch(`${zmUrl}/api/users/${limitedId}.json?token=${encodeURIComponent(admToken)}`, {
    method: 'PUT',
    body: new URLSearchParams({ 'User[MonitorIds]': '' }),
  });
  t.is(all.status, 200);
  const after = ((await call('GET', '/monitors-permissions')).body.items as any[]).filter(
    (r) => r.user_id === limitedId,
  );
  t.deepEqual(after.map((r) => [r.monitor_id, r.permission]).sort(), [
    [1, 'Inherit'],
    [2, 'View'],
  ]);
  t.deepEqual(await v3Monitors(), [1, 2]);
});
