import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clock } from '@podset/clock';
import { RateLimiter } from './rate-limiter.ts';

/** A clock that only moves when told; sleep resolves immediately but records the asked duration. */
function fakeClock(): Clock & { t: number; slept: number[] } {
  const clock = {
    t: 1000,
    slept: [] as number[],
    now: () => clock.t,
    elapsed: () => clock.t,
    sleep: (ms: number) => {
      clock.slept.push(ms);
      return Promise.resolve();
    },
  };
  return clock;
}

test('a full bucket admits `burst` requests without waiting, then spaces them at 1/qps', () => {
  const clock = fakeClock();
  const rl = new RateLimiter({ qps: 10, burst: 3, clock });
  assert.deepEqual([rl.reserve(), rl.reserve(), rl.reserve()], [0, 0, 0]);
  // The 4th, 5th and 6th are queued behind each other at 100 ms intervals.
  assert.equal(rl.reserve(), 100);
  assert.equal(rl.reserve(), 200);
  assert.equal(rl.reserve(), 300);
  assert.equal(rl.stats().waited, 3);
  assert.equal(rl.stats().waitMs, 600);
  assert.equal(rl.stats().acquired, 6);
});

test('tokens refill with time, capped at burst', () => {
  const clock = fakeClock();
  const rl = new RateLimiter({ qps: 5, burst: 2, clock });
  rl.reserve();
  rl.reserve();
  assert.equal(rl.tokens(), 0);
  clock.t += 100; // half a token
  assert.ok(Math.abs(rl.tokens() - 0.5) < 1e-9);
  assert.ok(Math.abs(rl.reserve() - 100) < 1e-9); // needs the other half: 100 ms at 5 QPS
  clock.t += 60_000; // long idle: refills to burst, no further
  assert.equal(rl.tokens(), 2);
  assert.deepEqual([rl.reserve(), rl.reserve()], [0, 0]);
  assert.ok(rl.reserve() > 0);
});

test('a queued deficit is paid back before new tokens are available', () => {
  const clock = fakeClock();
  const rl = new RateLimiter({ qps: 1, burst: 1, clock });
  assert.equal(rl.reserve(), 0);
  assert.equal(rl.reserve(), 1000);
  assert.equal(rl.reserve(), 2000);
  clock.t += 1000; // one reservation's worth passed
  assert.equal(rl.reserve(), 2000);
});

test('pause (Retry-After) holds every request until it ends, even with tokens to spare', () => {
  const clock = fakeClock();
  const rl = new RateLimiter({ qps: 100, burst: 10, clock });
  rl.pause(3000);
  assert.equal(rl.reserve(), 3000);
  clock.t += 1000;
  assert.equal(rl.reserve(), 2000);
  clock.t += 2000;
  assert.equal(rl.reserve(), 0);
  assert.equal(rl.stats().pauses, 1);
  // A shorter pause inside a longer one does not shorten it.
  rl.pause(5000);
  rl.pause(1000);
  assert.equal(rl.reserve(), 5000);
  assert.equal(rl.stats().pauses, 2);
});

test('unlimited (qps 0) never waits except for pauses', () => {
  const clock = fakeClock();
  const rl = new RateLimiter({ qps: 0, burst: 1, clock });
  for (let i = 0; i < 1000; i++) assert.equal(rl.reserve(), 0);
  rl.pause(250);
  assert.equal(rl.reserve(), 250);
});

test('acquire sleeps for the reserved wait and reports it', async () => {
  const clock = fakeClock();
  const rl = new RateLimiter({ qps: 4, burst: 1, clock });
  assert.equal(await rl.acquire(), 0);
  assert.equal(await rl.acquire(), 250);
  assert.deepEqual(clock.slept, [250]);
});

test('invalid settings are rejected', () => {
  assert.throws(() => new RateLimiter({ qps: -1, burst: 1 }), /qps/);
  assert.throws(() => new RateLimiter({ qps: 1, burst: 0 }), /burst/);
});
