import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { freshDatabase } from '../helpers/mariadb.js';
import { testEnv, startTestApp } from '../helpers/app.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const zmgate = fileURLToPath(new URL('../../bin/zmgate.js', import.meta.url));
const zmgateDb = fileURLToPath(new URL('../../bin/zmgate-db.js', import.meta.url));

/** An environment with no database and a configuration that would not even load. */
const brokenEnv = { PATH: process.env.PATH ?? '', APP_SERVER__PORT: 'not-a-port', APP_DB__HOST: '127.0.0.1:1' };

function cli(bin: string, args: string[], env: Record<string, string> = brokenEnv) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    env,
    encoding: 'buffer',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
}

test('-V and --version print the version with no configuration and no database', (t) => {
  for (const flag of ['-V', '--version']) {
    const r = cli(zmgate, [flag]);
    t.is(r.status, 0, r.stderr.toString());
    t.is(r.stdout.toString(), '3.0.0-alpha.1\n');
  }
});

test('-h prints usage and exits 0; an unknown argument prints usage and exits 2', (t) => {
  const help = cli(zmgate, ['--help']);
  t.is(help.status, 0);
  t.regex(help.stdout.toString(), /^Usage: zmgate/);
  const bad = cli(zmgate, ['--frobnicate']);
  t.is(bad.status, 2);
  t.regex(bad.stderr.toString(), /unknown argument[\s\S]*Usage: zmgate/);
  t.is(bad.stdout.length, 0);
});

test('--openapi prints a valid 3.1 document, byte-identical to the served one', async (t) => {
  const r = cli(zmgate, ['--openapi']);
  t.is(r.status, 0, r.stderr.toString());
  const doc = JSON.parse(r.stdout.toString());
  t.is(doc.openapi, '3.1.0');
  const result = await new Validator().validate(doc);
  t.true(result.valid, JSON.stringify(result.errors));
  const app = await startTestApp({ db: await freshDatabase('cli') });
  try {
    const served = Buffer.from(await (await fetch(`${app.url}/api-docs/openapi.json`)).arrayBuffer());
    t.true(served.equals(r.stdout));
  } finally {
    await app.close();
  }
  t.true(readFileSync(new URL('../../dist/generated/openapi.json', import.meta.url)).equals(r.stdout));
});

test('zmgate-db answers --help and refuses no command with exit 2', (t) => {
  const help = cli(zmgateDb, ['--help']);
  t.is(help.status, 0);
  t.regex(help.stdout.toString(), /bridge -u URL/);
  t.is(cli(zmgateDb, []).status, 2);
});

function startupFailure(env: Record<string, string>) {
  const r = cli(zmgate, [], { PATH: process.env.PATH ?? '', ...testEnv(), ...env });
  return { status: r.status, stderr: r.stderr.toString() };
}

test("APP_SERVER__ALLOWED_ORIGINS='*' stops start-up with one line naming the setting", (t) => {
  const r = startupFailure({ APP_SERVER__ALLOWED_ORIGINS: '*' });
  t.is(r.status, 1);
  t.regex(r.stderr, /server\.allowed_origins/);
  t.regex(r.stderr, /APP_SERVER__ALLOWED_ORIGINS/);
  t.is(r.stderr.trim().split('\n').length, 1);
});

test('TLS and ACME together stop start-up', (t) => {
  const r = startupFailure({
    APP_SERVER__TLS__ENABLED: 'true',
    APP_SERVER__TLS__CERT_PATH: '/tmp/cert.pem',
    APP_SERVER__TLS__KEY_PATH: '/tmp/key.pem',
    APP_SERVER__ACME__ENABLED: 'true',
    APP_SERVER__ACME__DOMAINS__0: 'nvr.example.org',
  });
  t.is(r.status, 1);
  t.regex(r.stderr, /server\.tls\.enabled/);
  t.regex(r.stderr, /exclusive/i);
  t.regex(r.stderr, /server\.acme\.enabled/);
});

async function freePort(preferred: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const got = (s.address() as { port: number }).port;
        s.close(() => resolve(got));
      });
    });
  return tryPort(preferred).catch(() => tryPort(0));
}

test('APP_SERVER__PORT moves the listener; SIGTERM drains and exits 0', async (t) => {
  const db = await freshDatabase('port');
  const port = await freePort(9000);
  const child = spawn(process.execPath, [zmgate], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...testEnv({ db }), APP_SERVER__PORT: String(port), APP_LOG__LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    let status = 0;
    for (let i = 0; i < 60 && status !== 200; i++) {
      status = await fetch(`http://127.0.0.1:${port}/api/v3/server/health_check`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    t.is(status, 200);
  } finally {
    child.kill('SIGTERM');
  }
  t.is(await exited, 0);
  const records = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.true(records.some((r) => r.msg === 'listening' && r.port === port));
  t.true(records.some((r) => r.msg === 'stopped'));
});

test('server.tls serves HTTPS with the configured certificate; an unreadable one stops start-up', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'zmgate-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ],
    { encoding: 'utf8' },
  );
  t.is(made.status, 0, made.stderr);
  const tlsEnv = { APP_SERVER__TLS__ENABLED: 'true', APP_SERVER__TLS__CERT_PATH: cert, APP_SERVER__TLS__KEY_PATH: key };
  const app = await startTestApp({ db: await freshDatabase('tls'), env: tlsEnv });
  try {
    t.true(app.url.startsWith('https://'));
    const res = await new Promise<{ status: number; hsts: string | undefined }>((resolve, reject) => {
      https
        .get(`${app.url}/api/v3/server/health_check`, { rejectUnauthorized: false }, (r) => {
          r.resume();
          resolve({ status: r.statusCode ?? 0, hsts: r.headers['strict-transport-security'] as string | undefined });
        })
        .on('error', reject);
    });
    t.is(res.status, 200);
    t.regex(res.hsts ?? '', /max-age=31536000/);
  } finally {
    await app.close();
  }
  const bad = startupFailure({ ...tlsEnv, APP_SERVER__TLS__CERT_PATH: join(dir, 'missing.pem') });
  t.is(bad.status, 1);
  t.regex(bad.stderr, /server\.tls\.cert_path: cannot read/);
  t.is(bad.stderr.trim().split('\n').length, 1);
});
