// The telemetry job against a local HTTP receiver: opt-out, the payload (UUID created, ZoneMinder's
// version, monitors, scrubbed paths, "Unknown" geolocation), ZM_TELEMETRY_LAST_UPLOAD, the
// interval from ZM_TELEMETRY_INTERVAL, and retry after a 500 or a timeout.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TelemetryJob, scrubPath } from '../../src/features/maintenance/telemetry-job.js';
import { insertEvent, insertMonitor, sql } from '../helpers/events.js';
import { capturedLogger, poolFor, setZmConfig } from '../helpers/maintenance.js';
import { zmDatabase } from '../helpers/zmdb.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A receiver on loopback answering `status()` (or never, for 'hang'). */
async function receiver(status: () => number | 'hang') {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const s = status();
      if (s === 'hang') return;
      res.writeHead(s).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    url: `http://zmanon:s3cret@127.0.0.1:${port}/zmtelemetry`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

async function setup(prefix: string, endpoint: string) {
  const db = await zmDatabase(prefix);
  const pool = poolFor(db);
  const { log, records } = capturedLogger();
  for (const [k, v] of [
    ['ZM_TELEMETRY_DATA', '1'],
    ['ZM_TELEMETRY_INTERVAL', '14*24*60*60'],
    ['ZM_TELEMETRY_UUID', ''],
    ['ZM_TELEMETRY_LAST_UPLOAD', '0'],
    ['ZM_TELEMETRY_SERVER_ENDPOINT', endpoint],
    ['ZM_DYN_CURR_VERSION', '1.36.33'],
    ['ZM_DYN_DB_VERSION', '1.36.33'],
  ]) {
    await setZmConfig(db, k, v);
  }
  let now = Date.parse('2026-11-01T00:00:00Z');
  const job = new TelemetryJob({
    pool,
    log,
    enabled: true,
    intervalSeconds: 86400,
    timeoutMs: 500,
    now: () => new Date(now),
  });
  const config = async (name: string) =>
    (await sql(db, 'SELECT Value FROM Config WHERE Name = ?', [name]))[0]?.Value as string;
  return {
    db,
    pool,
    job,
    records,
    config,
    advance: (s: number) => (now += s * 1000),
    nowS: () => Math.floor(now / 1000),
  };
}

test('scrubbing: scheme and path shape only; a remote path that is not a URL is dropped', (t) => {
  t.is(
    scrubPath('rtsp://admin:pw@192.168.1.64:554/Streaming/Channels/101?transportmode=unicast', 'Ffmpeg'),
    'rtsp://host/Streaming/Channels/0',
  );
  t.is(
    scrubPath('http://cam.example/cgi-bin/snapshot.cgi?user=admin&pwd=x', 'Remote'),
    'http://host/cgi-bin/snapshot.cgi',
  );
  t.is(scrubPath('/dev/video2', 'Local'), '/dev/video0');
  t.is(scrubPath('192.168.1.10:554/live', 'Ffmpeg'), null);
  t.is(scrubPath('/home/alice/clip.mp4', 'File'), null);
  t.is(scrubPath('', 'Ffmpeg'), null);
});

test('opted out (ZM_TELEMETRY_DATA = 0): nothing is sent', async (t) => {
  const r = await receiver(() => 200);
  t.teardown(r.close);
  const f = await setup('tele_optout', r.url);
  t.teardown(() => f.pool.end());
  await setZmConfig(f.db, 'ZM_TELEMETRY_DATA', '0');
  t.deepEqual(await f.job.run(), { skipped_opted_out: 1 });
  t.is(r.received.length, 0);
});

test('the report: UUID created once, ZoneMinder version, monitors with scrubbed paths, Unknown geolocation, LAST_UPLOAD updated; not again before the interval', async (t) => {
  const r = await receiver(() => 200);
  t.teardown(r.close);
  const f = await setup('tele_report', r.url);
  t.teardown(() => f.pool.end());
  await insertMonitor(f.db, 1, 'Front door', {
    Type: 'Ffmpeg',
    Path: 'rtsp://admin:pw@10.0.0.5:554/cam/realmonitor?channel=1&subtype=0',
    Width: 1920,
    Height: 1080,
  });
  await insertMonitor(f.db, 2, 'Garage', { Type: 'Ffmpeg', Path: '10.0.0.6/stream1' });
  await insertEvent(f.db, { monitorId: 1 });
  t.deepEqual(await f.job.run(), { uploaded: 1, monitors: 2 });
  t.is(r.received.length, 1);
  const { body, headers } = r.received[0];
  const uuid = await f.config('ZM_TELEMETRY_UUID');
  t.regex(uuid, /^[0-9a-f-]{36}$/);
  t.is(body.uuid, uuid);
  t.is(body.zm_version, '1.36.33');
  t.like(body, {
    city: 'Unknown',
    region: 'Unknown',
    country: 'Unknown',
    latitude: 'Unknown',
    longitude: 'Unknown',
    monitor_count: 2,
    event_count: 1,
  });
  t.deepEqual(
    body.monitors.map((m: any) => [m.Type, m.Path ?? null, m.Width]),
    [
      ['Ffmpeg', 'rtsp://host/cam/realmonitor', 1920],
      ['Ffmpeg', null, 0],
    ],
  );
  t.false(JSON.stringify(body).includes('Front door'), 'no monitor names');
  t.false(JSON.stringify(body).includes('10.0.0'), 'no addresses');
  t.is(headers.authorization, `Basic ${Buffer.from('zmanon:s3cret').toString('base64')}`);
  t.is(await f.config('ZM_TELEMETRY_LAST_UPLOAD'), String(f.nowS()));

  // Due again after 14 days (14*24*60*60), not before; the UUID stays.
  t.is(await f.job.intervalSeconds(), 14 * 86400);
  f.advance(13 * 86400);
  t.deepEqual(await f.job.run(), { skipped_not_due: 1 });
  f.advance(86400 + 1);
  t.deepEqual(await f.job.run(), { uploaded: 1, monitors: 2 });
  t.is(r.received[1].body.uuid, uuid);
});

test('an unparseable ZM_TELEMETRY_INTERVAL falls back to the configured interval with a warning', async (t) => {
  const r = await receiver(() => 200);
  t.teardown(r.close);
  const f = await setup('tele_interval', r.url);
  t.teardown(() => f.pool.end());
  await setZmConfig(f.db, 'ZM_TELEMETRY_INTERVAL', 'system("reboot")');
  await setZmConfig(f.db, 'ZM_TELEMETRY_LAST_UPLOAD', String(f.nowS()));
  t.is(await f.job.intervalSeconds(), 86400);
  t.true(f.records.some((r) => r.level === 40 && /ZM_TELEMETRY_INTERVAL/.test(r.msg)));
});

test('a 500 or a timeout is an error with its cause, LAST_UPLOAD is kept, and the upload is retried sooner', async (t) => {
  let answer: number | 'hang' = 500;
  const r = await receiver(() => answer);
  t.teardown(r.close);
  const f = await setup('tele_retry', r.url);
  t.teardown(() => f.pool.end());
  const e500 = await t.throwsAsync(f.job.run());
  t.regex(e500!.message, /answered 500/);
  t.is(await f.config('ZM_TELEMETRY_LAST_UPLOAD'), '0');
  t.is(await f.job.intervalSeconds(), 3600);
  answer = 'hang';
  const timeout = await t.throwsAsync(f.job.run());
  t.regex(timeout!.message, /telemetry upload failed: .*(timeout|aborted)/i);
  t.is(await f.job.intervalSeconds(), 7200);
  answer = 200;
  t.deepEqual(await f.job.run(), { uploaded: 1, monitors: 0 });
  t.is(await f.job.intervalSeconds(), 14 * 86400);
  t.is(r.received.length, 3);
});
