import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAKE_CLOCK_START, FakeClock } from './fake-clock.ts';

test('now stands still until advanced, then moves by exactly the amount', async () => {
  const clock = new FakeClock();
  assert.equal(clock.now(), FAKE_CLOCK_START);
  assert.equal(clock.now(), FAKE_CLOCK_START);
  await clock.advance(1500);
  assert.equal(clock.now(), FAKE_CLOCK_START + 1500);
  assert.equal(new FakeClock(42).now(), 42);
});

test('a sleep ends only once the time has been advanced past it', async () => {
  const clock = new FakeClock(0);
  let woke = false;
  const slept = clock.sleep(1000).then(() => (woke = true));
  assert.equal(clock.sleepers, 1);
  await clock.advance(999);
  assert.equal(woke, false);
  assert.equal(clock.sleepers, 1);
  await clock.advance(1);
  await slept;
  assert.equal(woke, true);
  assert.equal(clock.sleepers, 0);
});

test('due sleepers wake in order of their deadlines, each seeing its own deadline as now', async () => {
  const clock = new FakeClock(0);
  const woke: string[] = [];
  const sleep = (name: string, ms: number) => clock.sleep(ms).then(() => woke.push(`${name}@${clock.now()}`));
  const all = Promise.all([
    sleep('c', 300),
    sleep('a', 100),
    sleep('b', 200),
    sleep('a2', 100),
    sleep('late', 900),
  ]);
  await clock.advance(500);
  assert.deepEqual(woke, ['a@100', 'a2@100', 'b@200', 'c@300']);
  assert.equal(clock.now(), 500);
  assert.equal(clock.sleepers, 1, 'the sleep due after the window still waits');
  await clock.advance(400);
  await all;
  assert.deepEqual(woke.at(-1), 'late@900');
});

test('a sleep started by a woken sleeper that falls due within the same advance wakes too', async () => {
  const clock = new FakeClock(0);
  const ticks: number[] = [];
  const loop = (async () => {
    for (let i = 0; i < 3; i++) {
      await clock.sleep(100);
      ticks.push(clock.now());
    }
  })();
  await clock.advance(250);
  assert.deepEqual(ticks, [100, 200]);
  await clock.advance(50);
  await loop;
  assert.deepEqual(ticks, [100, 200, 300]);
});

test('an aborted sleep rejects with the signal reason and leaves the clock', async () => {
  const clock = new FakeClock(0);
  const ac = new AbortController();
  const slept = clock.sleep(1000, ac.signal);
  ac.abort(new Error('stopping'));
  await assert.rejects(slept, /stopping/);
  assert.equal(clock.sleepers, 0);
  await assert.rejects(clock.sleep(10, ac.signal), /stopping/, 'a signal already aborted rejects at once');
});

test('time does not go back', async () => {
  await assert.rejects(new FakeClock().advance(-1), RangeError);
});
