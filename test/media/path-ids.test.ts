// The ids of media paths (src/media/path-ids.ts): digits only, within the columns' ranges.
import test from 'ava';
import { InvalidInputError } from '../../src/errors.js';
import { eventIdParam, monitorIdParam, parseEventId, parseMonitorId } from '../../src/media/path-ids.js';

test('monitor ids: 0 to 2^31-1 in decimal digits, nothing else', (t) => {
  t.is(parseMonitorId('0'), 0);
  t.is(parseMonitorId('2147483647'), 2147483647);
  for (const bad of ['2147483648', '99999999999', '-1', '1.0', '1e3', ' 1', '0x1', '', '１'])
    t.is(parseMonitorId(bad), null, bad);
});

test('event ids: 0 to 2^63-1 in decimal digits, nothing else', (t) => {
  t.is(parseEventId('9223372036854775807'), 9223372036854775807n);
  for (const bad of ['9223372036854775808', '12345678901234567890', '-1', '+1', '', 'abc'])
    t.is(parseEventId(bad), null, bad);
});

test('a bad path id is a 400 naming the parameter', (t) => {
  t.is(monitorIdParam('7'), 7);
  t.is(eventIdParam('7', 'eid'), 7n);
  const e = t.throws(() => monitorIdParam(['1', '2']), { instanceOf: InvalidInputError });
  t.is(e.status, 400);
  t.true(JSON.stringify(e.toEnvelope()).includes('monitor_id'));
  const f = t.throws(() => eventIdParam(undefined, 'eid'), { instanceOf: InvalidInputError });
  t.true(JSON.stringify(f.toEnvelope()).includes('eid'));
});
