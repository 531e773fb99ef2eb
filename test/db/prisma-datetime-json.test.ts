// src/db/datetime.ts, src/db/prisma-json.ts and the zero-date filter, without a database. The
// wall-clock conversions must give the same answer under any process time zone, so the core
// cases also run in child processes with TZ=UTC and TZ=America/New_York.
import test from 'ava';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Decimal } from '@prisma/client/runtime/client';
import { fromLocalDateTimeString, fromWallClock, toLocalDateTimeString, toWallClock } from '../../src/db/datetime.js';
import { bigintToJson, decimalToString, stringifyJson, toJson } from '../../src/db/prisma-json.js';
import { isValidDateText, nullInvalidDates } from '../../src/db/prisma-zero-dates.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Run in a child: what adapter-mariadb hands back for DATETIME '2026-11-22 08:53:58' is
// new Date('2026-11-22T08:53:58Z'), and what it writes for a Date is its UTC fields.
const CHILD = `
  const dt = await import(${JSON.stringify(pathToFileURL(path.join(repo, 'src', 'db', 'datetime.ts')).href)});
  const read = new Date('2026-11-22 08:53:58Z');
  const written = dt.fromLocalDateTimeString('2026-11-22T08:53:58');
  const utcFields = (d) => [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()].join(',');
  console.log(JSON.stringify({
    tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
    emitted: dt.toLocalDateTimeString(read),
    writtenFields: utcFields(written),
    nyInstant: dt.fromWallClock(written, 'America/New_York').toISOString(),
  }));
`;

for (const tz of ['UTC', 'America/New_York']) {
  test(`TZ=${tz}: read and write keep the stored digits`, async (t) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', CHILD],
      {
        cwd: repo,
        env: { ...process.env, TZ: tz },
      },
    );
    t.deepEqual(JSON.parse(stdout), {
      tz,
      emitted: '2026-11-22T08:53:58',
      writtenFields: '2026,11,22,8,53,58',
      nyInstant: '2026-11-22T13:53:58.000Z',
    });
  });
}

test('toLocalDateTimeString: seconds, milliseconds only when present, null for null and invalid', (t) => {
  t.is(toLocalDateTimeString(new Date('2026-11-22T08:53:58Z')), '2026-11-22T08:53:58');
  t.is(toLocalDateTimeString(new Date('2026-11-22T08:53:58.120Z')), '2026-11-22T08:53:58.120');
  t.is(toLocalDateTimeString(null), null);
  t.is(toLocalDateTimeString(undefined), null);
  t.is(toLocalDateTimeString(new Date(Number.NaN)), null);
});

test('fromLocalDateTimeString: both separators, date only, fractions; refuses offsets and impossible dates', (t) => {
  const iso = (s: string) => fromLocalDateTimeString(s).toISOString();
  t.is(iso('2026-11-22T08:53:58'), '2026-11-22T08:53:58.000Z');
  t.is(iso('2026-11-22 08:53:58'), '2026-11-22T08:53:58.000Z');
  t.is(iso('2026-11-22'), '2026-11-22T00:00:00.000Z');
  t.is(iso('2026-11-22T08:53:58.123456'), '2026-11-22T08:53:58.123Z');
  t.is(iso('2024-02-29T00:00:00'), '2024-02-29T00:00:00.000Z');
  t.is(fromLocalDateTimeString(null), null);
  for (const bad of [
    '2026-11-22T08:53:58Z',
    '2026-11-22T08:53:58+01:00',
    '2026-02-29T00:00:00',
    '2026-13-01',
    '2026-11-22T24:00:00',
    '',
    'now',
  ]) {
    t.throws(() => fromLocalDateTimeString(bad), { instanceOf: RangeError }, bad);
  }
});

test('toWallClock / fromWallClock convert instants for a named zone, DST included', (t) => {
  const ny = 'America/New_York';
  t.is(toLocalDateTimeString(toWallClock(new Date('2026-11-22T13:53:58Z'), ny)), '2026-11-22T08:53:58');
  t.is(toLocalDateTimeString(toWallClock(new Date('2026-07-01T16:00:00Z'), ny)), '2026-07-01T12:00:00');
  const instant = (s: string) => fromWallClock(fromLocalDateTimeString(s), ny).toISOString();
  t.is(instant('2026-07-01T12:00:00'), '2026-07-01T16:00:00.000Z');
  t.is(instant('2026-03-08T03:00:00'), '2026-03-08T07:00:00.000Z'); // just after spring forward
  t.is(instant('2026-03-08T02:30:00'), '2026-03-08T07:30:00.000Z'); // skipped: moved on by the gap
  t.is(instant('2026-11-01T01:30:00'), '2026-11-01T05:30:00.000Z'); // repeated: the earlier one
  t.is(instant('2026-11-01T02:30:00'), '2026-11-01T07:30:00.000Z');
});

test('toJson: BigInt as a number when safe, Decimal as a plain string, Date as local wall-clock', (t) => {
  const row = {
    Id: 2n ** 40n,
    Huge: 2n ** 64n - 1n,
    Length: new Decimal('579.93'),
    Tiny: new Decimal('0.0000001'),
    StartDateTime: new Date('2026-11-22T08:53:58Z'),
    EndDateTime: null,
    Skipped: undefined,
    Bytes: new Uint8Array([1, 2, 3]),
    Tags: [{ Id: 5n, Name: 'x' }],
  };
  t.deepEqual(toJson(row), {
    Id: 1099511627776,
    Huge: '18446744073709551615',
    Length: '579.93',
    Tiny: '0.0000001',
    StartDateTime: '2026-11-22T08:53:58',
    EndDateTime: null,
    Bytes: 'AQID',
    Tags: [{ Id: 5, Name: 'x' }],
  });
  t.is(stringifyJson({ Id: 7n }), '{"Id":7}');
  t.is(bigintToJson(BigInt(Number.MAX_SAFE_INTEGER) + 1n), '9007199254740992');
  t.is(decimalToString(new Decimal('0.00')), '0');
  t.is(decimalToString(new Decimal('0.00'), 2), '0.00');
});

test('the zero-date filter: which date texts are valid, and rows are nulled only in date columns', (t) => {
  for (const good of ['2026-11-22 08:53:58', '2024-02-29 00:00:00', '2026-11-22', '2026-11-22 08:53:58.123'])
    t.true(isValidDateText(good), good);
  for (const bad of [
    '0000-00-00 00:00:00',
    '0000-00-00',
    '2024-00-10 10:00:00',
    '2024-05-00',
    '2026-02-29 00:00:00',
    '2026-11-22 25:00:00',
    'x',
  ]) {
    t.false(isValidDateText(bad), bad);
  }
  const field = (name: string, type: string) => ({ name: () => name, type });
  const rows = Object.assign(
    [
      ['0000-00-00 00:00:00', '0000-00-00 00:00:00', '2026-11-22 08:53:58'],
      [null, 'text', '0000-00-00'],
    ],
    { meta: [field('a', 'DATETIME'), field('b', 'VAR_STRING'), field('c', 'DATE')] },
  );
  t.deepEqual(
    [...nullInvalidDates(rows)],
    [
      [null, '0000-00-00 00:00:00', '2026-11-22 08:53:58'],
      [null, 'text', null],
    ],
  );
  const objects = Object.assign([{ a: '0000-00-00 00:00:00', b: '0000-00-00 00:00:00' }], {
    meta: [field('a', 'TIMESTAMP'), field('b', 'STRING')],
  });
  t.deepEqual([...nullInvalidDates(objects)], [{ a: null, b: '0000-00-00 00:00:00' }]);
  t.deepEqual(nullInvalidDates({ affectedRows: 1 }), { affectedRows: 1 });
});
