// The Users field table's row → response conversion, without a database: the password hash is
// never copied, columns an older schema lacks read as their defaults, unknown levels as None.
import test from 'ava';
import { toUserResponse } from '../../src/features/users/users-service.js';
import { USER_FIELDS } from '../../src/features/users/user-fields.js';

test('a raw Users row: no password, defaults for absent columns, unknown levels read as None', (t) => {
  const res = toUserResponse({ Id: 3, Username: 'ann', Password: '$2y$10$hash', Stream: 'Bogus', Monitors: 'Create' });
  t.false('password' in res);
  t.false(JSON.stringify(res).includes('$2y$'));
  t.deepEqual(res, {
    id: 3,
    username: 'ann',
    name: '',
    email: '',
    phone: '',
    language: null,
    enabled: 0,
    stream: 'None',
    events: 'None',
    control: 'None',
    monitors: 'Create',
    groups: 'None',
    devices: 'None',
    snapshots: 'None',
    system: 'None',
    max_bandwidth: null,
    api_enabled: 1,
    home_view: '',
  });
});

test('the password is the only write-only column', (t) => {
  t.deepEqual(
    USER_FIELDS.filter((f) => f.writeOnly).map((f) => f.column),
    ['Password'],
  );
});
