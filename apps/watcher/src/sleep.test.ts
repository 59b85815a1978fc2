import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sleep } from './sleep.ts';

/** 'woke' if `p` settled by the next macrotask, else 'asleep'. */
function state(p: Promise<void>): Promise<'woke' | 'asleep'> {
  return Promise.race([
    p.then(() => 'woke' as const),
    new Promise<'asleep'>((resolve) => setImmediate(() => resolve('asleep'))),
  ]);
}

test('sleep resolves when its time has passed', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const slept = sleep(60_000);
  assert.equal(await state(slept), 'asleep');
  t.mock.timers.tick(60_000);
  assert.equal(await state(slept), 'woke');
});

test('sleep returns early, without throwing, when aborted', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const controller = new AbortController();
  const slept = sleep(60_000, controller.signal);
  assert.equal(await state(slept), 'asleep');
  controller.abort();
  assert.equal(await state(slept), 'woke');
  assert.equal(await state(sleep(60_000, AbortSignal.abort())), 'woke');
});
