// A recording's remux layout is cached, but a failed computation is not: the next request
// retries instead of answering the same rejection for as long as the recording stays open.
import test from 'ava';
import type { Mp4File } from '../../src/native/mp4-file.js';
import { Recording } from '../../src/features/playback/recording-cache.js';

test('a rejected layout is not kept: the next call computes it again', async (t) => {
  let plans = 0;
  // Only what computeLayout() reaches before failing: the remux plan, here unreadable.
  const file = {
    remuxPlan() {
      plans++;
      throw new Error('read error');
    },
  } as unknown as Mp4File;
  const rec = new Recording(file, 'v1', new Date(0));
  await t.throwsAsync(rec.layout(), { message: 'read error' });
  await t.throwsAsync(rec.layout(), { message: 'read error' });
  t.is(plans, 2, 'the second call tried again');
});

test('a layout in progress is shared by concurrent callers', async (t) => {
  let plans = 0;
  const file = {
    remuxPlan() {
      plans++;
      throw new Error('read error');
    },
  } as unknown as Mp4File;
  const rec = new Recording(file, 'v1', new Date(0));
  const a = rec.layout();
  const b = rec.layout();
  t.is(a, b);
  await t.throwsAsync(a);
  t.is(plans, 1);
});
