import test from 'ava';
import { freshDatabase } from '../helpers/mariadb.js';
import { startTestApp } from '../helpers/app.js';
import { launchChromium } from '../helpers/browser.js';

test('the API explorer renders in Chromium and requests nothing from other hosts', async (t) => {
  const app = await startTestApp({ db: await freshDatabase('explorer') });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    const res = await page.goto(`${app.url}/swagger-ui`, { waitUntil: 'networkidle' });
    t.is(res?.status(), 200);
    t.is(new URL(page.url()).pathname, '/swagger-ui/');
    await page.waitForSelector('.information-container .title', { timeout: 30_000 });
    t.regex((await page.textContent('.information-container .title')) ?? '', /zmgate/);
    await page.click('#operations-tag-Server', { timeout: 30_000 });
    await page.waitForSelector('[data-path="/api/v3/server/health_check"]', { timeout: 30_000 });
    const origin = new URL(app.url).origin;
    const foreign = requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
    t.deepEqual(foreign, []);
    t.true(requested.some((u) => u.endsWith('/api-docs/openapi.json')));
    t.deepEqual(consoleErrors, []);
  } finally {
    await browser.close();
    await app.close();
  }
});
