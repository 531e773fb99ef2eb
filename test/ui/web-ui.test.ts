// UI serving (`web.enabled`): a fixture single-page app built here (hashed assets, a precompressed
// bundle, client-side routing) served from web.root, driven by Debian's Chromium and by raw HTTP.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gunzipSync, gzipSync, brotliDecompressSync } from 'node:zlib';

import test from 'ava';

import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';
import { isEnvelope, request } from '../helpers/http.js';

const DEFAULT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; " +
  "connect-src 'self' ws: wss:; font-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'self'";

/** A bundler-style content hash: eight URL-safe characters, with a capital so it reads as a hash. */
function hashed(base: string, ext: string, content: string): string {
  const h = createHash('sha256').update(content).digest('base64url').slice(0, 7);
  return `${base}-H${h}.${ext}`;
}

interface Fixture {
  root: string;
  js: string;
  css: string;
  outside: string;
}

/** The app: renders `route:<path>` for any path, links navigate with pushState, a style sheet. */
function buildSpa(): Fixture {
  const root = mkdtempSync(join(tmpdir(), 'zmgate-spa-'));
  mkdirSync(join(root, 'assets'));
  const app = (variant: string) => `
window.__variant = ${JSON.stringify(variant)};
function render() {
  document.getElementById('app').innerHTML =
    '<p id="route" style="color: green">route:' + location.pathname + '</p>' +
    '<a id="to-monitors" href="/monitors">monitors</a>';
  document.getElementById('to-monitors').addEventListener('click', (e) => {
    e.preventDefault();
    history.pushState(null, '', '/monitors');
    render();
  });
}
window.addEventListener('popstate', render);
render();
fetch(window.__ZM_CONFIG__.apiBase + '/no-such-route').then(async (r) => {
  window.__api404 = { status: r.status, type: r.headers.get('content-type'), body: await r.json() };
});
`;
  const js = hashed('index', 'js', app('identity'));
  const css = hashed('style', 'css', 'body{font-family:sans-serif}');
  writeFileSync(join(root, 'assets', js), app('identity'));
  // Siblings with a marker of their own, so the page can tell which one the browser got.
  writeFileSync(join(root, 'assets', `${js}.br`), brotliCompressSync(app('br')));
  writeFileSync(join(root, 'assets', `${js}.gz`), gzipSync(app('gzip')));
  writeFileSync(join(root, 'assets', css), 'body{font-family:sans-serif}');
  writeFileSync(join(root, 'favicon.ico'), 'icon');
  writeFileSync(
    join(root, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>fixture</title>
<script src="/config.js"></script>
<link rel="stylesheet" href="/assets/${css}">
<script type="module" src="/assets/${js}"></script></head><body><div id="app"></div></body></html>`,
  );
  // A secret outside the root, and a symlink in the root pointing at it.
  const outsideDir = mkdtempSync(join(tmpdir(), 'zmgate-outside-'));
  const outside = join(outsideDir, 'secret.txt');
  writeFileSync(outside, 'top secret');
  symlinkSync(outside, join(root, 'leak.txt'));
  symlinkSync(outsideDir, join(root, 'leakdir'));
  return { root, js, css, outside };
}

/** A GET with the path sent exactly as given (fetch would normalise dot segments away). */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const fixture = buildSpa();
let app: TestApp;

test.before(async () => {
  app = await startTestApp({ env: { APP_WEB__ENABLED: 'true', APP_WEB__ROOT: fixture.root } });
});
test.after.always(() => app?.close());

test('Chromium: a deep link loads the app, client-side navigation and a reload on a client route work', async (t) => {
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on(
    'console',
    (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && problems.push(m.text()),
  );
  // The app's own probe of an unknown API route is the only request allowed to fail.
  page.on(
    'response',
    (r) => r.status() >= 400 && !r.url().endsWith('/api/v3/no-such-route') && problems.push(`${r.status()} ${r.url()}`),
  );

  const res = await page.goto(`${app.url}/events/123`);
  t.is(res?.status(), 200);
  t.is(res?.headers()['content-security-policy'], DEFAULT_CSP);
  t.is(res?.headers()['cache-control'], 'no-cache');
  await page.waitForSelector('#route');
  t.is(await page.textContent('#route'), 'route:/events/123');
  // The bundle came precompressed (Chromium accepts gzip at least), not as the plain file.
  t.not(await page.evaluate(() => (window as any).__variant), 'identity');

  await page.click('#to-monitors');
  t.is(await page.textContent('#route'), 'route:/monitors');
  const reloaded = await page.reload();
  t.is(reloaded?.status(), 200);
  await page.waitForSelector('#route');
  t.is(await page.textContent('#route'), 'route:/monitors');

  // The generated /config.js pointed the app at the API, whose 404 is still the JSON envelope.
  await page.waitForFunction(() => (window as any).__api404 !== undefined);
  const api404 = await page.evaluate(() => (window as any).__api404);
  t.is(api404.status, 404);
  t.regex(api404.type, /application\/json/);
  t.true(isEnvelope(api404.body));
  t.deepEqual(problems, []);
});

test('caching: hashed assets immutable, index.html and extension-less paths no-cache; ETag answers 304', async (t) => {
  const asset = await fetch(`${app.url}/assets/${fixture.css}`);
  t.is(asset.status, 200);
  t.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.regex(asset.headers.get('content-type') ?? '', /text\/css/);
  t.is(asset.headers.get('content-security-policy'), DEFAULT_CSP);
  const etag = asset.headers.get('etag');
  t.truthy(etag);
  // Raw requests: fetch() adds Cache-Control: no-cache to conditional requests, which forbids a 304.
  const again = await rawGet(app.url, `/assets/${fixture.css}`, { 'if-none-match': etag! });
  t.is(again.status, 304);

  for (const path of ['/', '/index.html', '/monitors', '/favicon.ico']) {
    const r = await fetch(`${app.url}${path}`);
    t.is(r.status, 200, path);
    t.is(r.headers.get('cache-control'), 'no-cache', path);
  }
  const index = await fetch(`${app.url}/index.html`);
  const revalidated = await rawGet(app.url, '/some/client/route', { 'if-none-match': index.headers.get('etag')! });
  t.is(revalidated.status, 304);
});

test('precompressed siblings follow Accept-Encoding, with Vary', async (t) => {
  const path = `/assets/${fixture.js}`;
  const br = await rawGet(app.url, path, { 'accept-encoding': 'gzip, br' });
  t.is(br.headers['content-encoding'], 'br');
  t.regex(brotliDecompressSync(br.body).toString(), /__variant = "br"/);
  const gz = await rawGet(app.url, path, { 'accept-encoding': 'gzip' });
  t.is(gz.headers['content-encoding'], 'gzip');
  t.regex(gunzipSync(gz.body).toString(), /__variant = "gzip"/);
  const plain = await rawGet(app.url, path, { 'accept-encoding': 'identity' });
  t.is(plain.headers['content-encoding'], undefined);
  t.regex(plain.body.toString(), /__variant = "identity"/);
  for (const r of [br, gz, plain]) {
    t.regex(String(r.headers.vary), /Accept-Encoding/i);
    t.regex(String(r.headers['content-type']), /javascript/);
    t.is(r.headers['cache-control'], 'public, max-age=31536000, immutable');
  }
  // Each representation has its own validator.
  t.not(br.headers.etag, gz.headers.etag);
});

test('API paths are never shadowed: JSON 404 envelopes and the API CSP', async (t) => {
  for (const path of [
    '/api/v3/no-such-route',
    '/api/nothing',
    '/api-docs/nothing',
    '/.well-known/acme-challenge/x',
    '/swagger-ui/nothing.html',
  ]) {
    const r = await rawGet(app.url, path, { accept: 'text/html,*/*' });
    t.is(r.status, 404, path);
    t.regex(String(r.headers['content-type']), /application\/json/, path);
    t.true(isEnvelope(JSON.parse(r.body.toString())), path);
    t.not(r.headers['content-security-policy'], DEFAULT_CSP, path);
  }
  const spec = await request(`${app.url}/api-docs/openapi.json`);
  t.is(spec.status, 200);
  t.regex(spec.headers.get('content-security-policy') ?? '', /default-src 'none'/);
});

test('a missing file with an extension is a 404 unless a browser navigates to it', async (t) => {
  const chunk = await rawGet(app.url, '/assets/index-Gone1234.js', { accept: '*/*' });
  t.is(chunk.status, 404);
  t.true(isEnvelope(JSON.parse(chunk.body.toString())));
  const nav = await rawGet(app.url, '/events/report.pdf', { accept: 'text/html,application/xhtml+xml' });
  t.is(nav.status, 200);
  t.regex(nav.body.toString(), /<title>fixture<\/title>/);
});

test('path traversal is a 404: dot segments, encoded, NUL, symlinks out of the root', async (t) => {
  const attempts = [
    '/../../../../etc/passwd',
    '/assets/../../../../etc/passwd',
    '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    '/assets/..%2f..%2f..%2fetc%2fpasswd',
    '/assets/%2E%2E%5C%2E%2E%5Cetc%5Cpasswd',
    '/index.html%00.js',
    '/%00',
    '/%E0%A4%A',
    '/leak.txt',
    '/leakdir/secret.txt',
  ];
  for (const path of attempts) {
    const r = await rawGet(app.url, path, { accept: 'text/html' });
    t.is(r.status, 404, path);
    t.false(r.body.toString().includes('top secret'), path);
    t.false(r.body.toString().includes('root:'), path);
    t.false(r.body.toString().includes('<title>fixture'), path);
  }
});

test("/config.js is generated when the root has none, and the root's own file wins", async (t) => {
  const generated = await fetch(`${app.url}/config.js`);
  t.is(generated.status, 200);
  t.regex(generated.headers.get('content-type') ?? '', /javascript/);
  t.is(await generated.text(), 'window.__ZM_CONFIG__ = {apiBase: "/api/v3"};\n');
  t.is(generated.headers.get('cache-control'), 'no-cache');

  const root = mkdtempSync(join(tmpdir(), 'zmgate-spa-own-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>own</title>');
  writeFileSync(join(root, 'config.js'), 'window.__ZM_CONFIG__ = {apiBase: "/zm/api/v3"};');
  const own = await startTestApp({
    env: { APP_WEB__ENABLED: 'true', APP_WEB__ROOT: root, APP_WEB__CONTENT_SECURITY_POLICY: '' },
  });
  t.teardown(() => own.close());
  const r = await fetch(`${own.url}/config.js`);
  t.is(await r.text(), 'window.__ZM_CONFIG__ = {apiBase: "/zm/api/v3"};');
  // An empty policy sends no CSP on UI responses.
  t.is(r.headers.get('content-security-policy'), null);
});

test('web.root without index.html: a warning at start-up, the API still served, no fallback', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'zmgate-spa-empty-'));
  const empty = await startTestApp({ env: { APP_WEB__ENABLED: 'true', APP_WEB__ROOT: root } });
  t.teardown(() => empty.close());
  t.true(empty.logs.some((l) => l.level === 40 && /web\.root has no index\.html/.test(l.msg) && l.root === root));
  const route = await request(`${empty.url}/events/123`);
  t.is(route.status, 404);
  t.true(isEnvelope(route.body));
  const spec = await request(`${empty.url}/api-docs/openapi.json`);
  t.is(spec.status, 200);
});

for (const enabled of [true, false]) {
  test(`the explorer and the demo page keep working with web.enabled = ${enabled}`, async (t) => {
    const other = await startTestApp({
      env: { APP_WEB__ENABLED: String(enabled), APP_WEB__ROOT: fixture.root, APP_WEB__DEMO_PAGE: 'true' },
    });
    t.teardown(() => other.close());
    for (const path of ['/demo/', '/demo/demo.js']) {
      const r = await fetch(`${other.url}${path}`);
      t.is(r.status, 200, path);
      // The demo page keeps its own policy, not the UI's.
      t.regex(r.headers.get('content-security-policy') ?? '', /default-src 'none'/, path);
    }
    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    const res = await page.goto(`${other.url}/swagger-ui`);
    t.is(res?.status(), 200);
    t.is(new URL(page.url()).pathname, '/swagger-ui/');
    await page.waitForSelector('.information-container .title', { timeout: 30_000 });
    t.regex((await page.textContent('.information-container .title')) ?? '', /zmgate/);
    // A client route is the UI with web.enabled, the JSON 404 without.
    const route = await request(`${other.url}/events/123`);
    t.is(route.status, enabled ? 200 : 404);
    if (!enabled) t.true(isEnvelope(route.body));
  });
}
