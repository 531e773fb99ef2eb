// Retention limits: the units operators write, per-Storage resolution, and the one-line start-up
// error naming the key for anything else.
import test from 'ava';
import { loadConfig } from '../../src/config/index.js';
import { parseByteSize, parseDuration, parseFloor } from '../../src/config/units.js';
import { floorBytes, limitsFor, unmatchedOverrides } from '../../src/features/retention/limits.js';

const load = (env: Record<string, string>) =>
  loadConfig({
    env: { APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf', ...env },
    defaultOperatorFile: '/nonexistent/prod.toml',
  });

test('sizes, percentages and durations as operators write them', (t) => {
  t.is(parseByteSize('50GiB'), 50 * 2 ** 30);
  t.is(parseByteSize('500 MB'), 500e6);
  t.is(parseByteSize('1.5TiB'), 1.5 * 2 ** 40);
  t.is(parseByteSize('4096'), 4096);
  t.is(parseByteSize('12 parsecs'), null);
  t.is(parseByteSize('-5GB'), null);
  t.deepEqual(parseFloor('10%'), { percent: 10 });
  t.deepEqual(parseFloor('2.5 %'), { percent: 2.5 });
  t.is(parseFloor('100%'), null);
  t.is(parseFloor('0%'), null);
  t.deepEqual(parseFloor('1GiB'), { bytes: 2 ** 30 });
  t.is(parseDuration('30d'), 30 * 86400);
  t.is(parseDuration('12h'), 43200);
  t.is(parseDuration('2w'), 14 * 86400);
  t.is(parseDuration('30'), null, 'a unit is required');
  t.is(parseDuration('0d'), null);
  t.is(floorBytes({ percent: 10 }, 1000), 100);
  t.is(floorBytes({ bytes: 7 }, 1000), 7);
});

test('configuration: defaults, environment values and overrides from JSON', (t) => {
  const { config } = load({});
  t.like(config.retention, {
    enabled: false,
    interval_seconds: 300,
    free_space_floor: '5%',
    max_age: '',
    quota: '',
    overrides: [],
  });
  const { config: c2 } = load({
    APP_RETENTION__MAX_AGE: '30d',
    APP_RETENTION__QUOTA: '2TiB',
    APP_RETENTION__OVERRIDES: '[{"storage": "NAS", "free_space_floor": "100GiB"}, {"storage": 3, "max_age": ""}]',
  });
  t.is(c2.retention.max_age, '30d');
  t.deepEqual(c2.retention.overrides, [
    { storage: 'NAS', free_space_floor: '100GiB' },
    { storage: '3', max_age: '' },
  ]);
  const nas = limitsFor(c2.retention, { id: 1, name: 'NAS' });
  t.deepEqual(nas.freeSpaceFloor, { bytes: 100 * 2 ** 30 });
  t.is(nas.maxAgeSeconds, 30 * 86400, 'keys left out keep the defaults');
  t.is(nas.quotaBytes, 2 * 2 ** 40);
  const three = limitsFor(c2.retention, { id: 3, name: 'Other' });
  t.is(three.maxAgeSeconds, null, '"" switches a limit off');
  t.deepEqual(unmatchedOverrides(c2.retention.overrides, [{ id: 1, name: 'NAS' }]), ['3']);
});

for (const [name, value, key] of [
  ['APP_RETENTION__FREE_SPACE_FLOOR', '150%', 'retention.free_space_floor'],
  ['APP_RETENTION__FREE_SPACE_FLOOR', 'lots', 'retention.free_space_floor'],
  ['APP_RETENTION__MAX_AGE', '30', 'retention.max_age'],
  ['APP_RETENTION__QUOTA', '2 parsecs', 'retention.quota'],
  ['APP_RETENTION__INTERVAL_SECONDS', '1', 'retention.interval_seconds'],
  ['APP_RETENTION__OVERRIDES', '[{"storage": "NAS", "max_age": "forever"}]', 'retention.overrides'],
  ['APP_RETENTION__OVERRIDES', '[{"storage": "NAS", "maxage": "3d"}]', 'retention.overrides'],
  ['APP_RETENTION__OVERRIDES', '[{"max_age": "3d"}]', 'retention.overrides'],
  ['APP_RETENTION__OVERRIDES', 'not json', 'retention.overrides'],
] as const) {
  test(`invalid ${name}=${value} stops start-up with one line naming the key`, (t) => {
    const err = t.throws(() => load({ [name]: value }));
    t.true(err?.message.includes(key) || err?.message.includes(name), err?.message);
    t.false(err?.message.includes('\n'));
  });
}
