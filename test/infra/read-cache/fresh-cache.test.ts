// FreshCache on a fake clock: what a value may be reused for, and what throws it away.
import test from 'ava';
import { FreshCache } from '../../../src/infra/read-cache/fresh-cache.js';

function setup(maxAgeMs = 2000) {
  let now = 0;
  let loads = 0;
  const cache = new FreshCache<number>({ maxAgeMs, maxEntries: 2, now: () => now });
  const load = () => Promise.resolve(++loads);
  return { cache, load, tick: (ms: number) => (now += ms), loads: () => loads };
}

test('a value is reused until it is maxAge old, reloaded in the background past half of it, then never used', async (t) => {
  const { cache, load, tick, loads } = setup();
  t.is(await cache.get('k', load), 1);
  tick(900);
  t.is(await cache.get('k', load), 1);
  t.is(loads(), 1, 'young: no query');
  tick(200); // 1100 ms: answered from the cache, reloaded behind it
  t.is(await cache.get('k', load), 1);
  t.is(loads(), 2);
  t.is(await cache.get('k', load), 2, 'the reload is used once it is in');
  tick(2001); // the reload started at 1100: now 3101, older than 2000
  t.is(await cache.get('k', load), 3, 'an expired value is never answered');
});

test('invalidate(): no value and no load started before it is used afterwards', async (t) => {
  let now = 0;
  const cache = new FreshCache<string>({ maxAgeMs: 2000, maxEntries: 10, now: () => now });
  let release!: (v: string) => void;
  const slow = cache.get('k', () => new Promise<string>((r) => (release = r)));
  cache.invalidate();
  const fresh = cache.get('k', async () => 'after');
  release('before');
  t.is(await slow, 'before', 'the request that started the old load still gets its answer');
  t.is(await fresh, 'after');
  now += 10;
  t.is(await cache.get('k', async () => 'unused'), 'after', 'the old load did not overwrite the newer value');
});

test('a load in flight is shared only while it started within maxAge of the ask', async (t) => {
  let now = 0;
  const cache = new FreshCache<string>({ maxAgeMs: 2000, maxEntries: 10, now: () => now });
  let release!: (v: string) => void;
  const first = cache.get('k', () => new Promise<string>((r) => (release = r)));
  now = 1500;
  const joined = cache.get('k', async () => 'second');
  now = 2500;
  const own = cache.get('k', async () => 'third');
  release('first');
  t.deepEqual(await Promise.all([first, joined, own]), ['first', 'first', 'third']);
});

test('a failed load is not remembered; keys beyond maxEntries are dropped oldest first', async (t) => {
  const { cache, load, loads } = setup();
  await t.throwsAsync(() => cache.get('bad', () => Promise.reject(new Error('down'))), { message: 'down' });
  t.is(await cache.get('bad', load), 1);
  await cache.get('b', load);
  await cache.get('c', load);
  t.is(cache.size, 2);
  t.is(await cache.get('bad', load), 4, 'the oldest key was dropped and loads again');
  t.is(loads(), 4);
});
