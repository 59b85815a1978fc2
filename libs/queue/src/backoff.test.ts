import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff.ts';

test('backoff doubles from the base and stops at the cap', () => {
  const top = () => 0.999999; // the top of the jitter range ≈ the ceiling
  const opts = { baseMs: 100, maxMs: 1_000, jitter: 0.5 };
  const ceilings = [1, 2, 3, 4, 5, 6, 10, 50, 5000].map((n) => backoffDelay(n, opts, top));
  assert.deepEqual(ceilings, [99, 199, 399, 799, 999, 999, 999, 999, 999]);
});

test('jitter keeps the delay within [d·(1−jitter), d]', () => {
  const opts = { baseMs: 1_000, maxMs: 60_000, jitter: 0.25 };
  assert.equal(
    backoffDelay(3, opts, () => 0),
    3_000,
  );
  for (let i = 0; i < 200; i++) {
    const d = backoffDelay(3, opts);
    assert.ok(d >= 3_000 && d <= 4_000, `delay ${d} out of range`);
  }
});

test('jitter spreads retries (not all the same)', () => {
  const seen = new Set(Array.from({ length: 50 }, () => backoffDelay(5)));
  assert.ok(seen.size > 10);
});

test('no jitter gives the exact exponential and defaults are sane', () => {
  assert.equal(backoffDelay(1, { jitter: 0 }), DEFAULT_BACKOFF.baseMs);
  assert.equal(backoffDelay(2, { jitter: 0 }), DEFAULT_BACKOFF.baseMs * 2);
  assert.throws(() => backoffDelay(0), RangeError);
  assert.throws(() => backoffDelay(1, { jitter: 2 }), RangeError);
});
