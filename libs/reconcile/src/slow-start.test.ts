import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { slowStartBatches } from './slow-start.ts';

test('doubling from 1 up to the burst, summing to n', () => {
  assert.deepEqual(slowStartBatches(0, 10), []);
  assert.deepEqual(slowStartBatches(1, 10), [1]);
  assert.deepEqual(slowStartBatches(10, 100), [1, 2, 4, 3]);
  assert.deepEqual(slowStartBatches(20, 5), [1, 2, 4, 5, 5, 3]);
  assert.deepEqual(slowStartBatches(3, 1), [1, 1, 1]);
  assert.deepEqual(slowStartBatches(3, 0), [1, 1, 1], 'a burst below 1 acts as 1');
  assert.deepEqual(slowStartBatches(-2, 4), []);
});

test('property: sum is n, every batch is within 1..burst and at most double the previous', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 1, max: 600 }), (n, burst) => {
      const b = slowStartBatches(n, burst);
      assert.equal(
        b.reduce((s, x) => s + x, 0),
        n,
      );
      b.forEach((x, i) => {
        assert.ok(x >= 1 && x <= burst);
        if (i > 0) assert.ok(x <= 2 * b[i - 1]!);
        if (i > 0 && i < b.length - 1) assert.equal(x, Math.min(2 * b[i - 1]!, burst));
      });
      if (n > 0) assert.equal(b[0], 1);
    }),
  );
});

test('property: a persistent failure costs at most 2×successes+1 calls when stopping at the first failing batch', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 500 }),
      fc.integer({ min: 1, max: 100 }),
      fc.nat(600),
      (n, burst, quota) => {
        let ok = 0;
        let calls = 0;
        for (const size of slowStartBatches(n, burst)) {
          let failed = false;
          for (let i = 0; i < size; i++) {
            calls++;
            if (ok < quota) ok++;
            else failed = true;
          }
          if (failed) break;
        }
        assert.equal(ok, Math.min(n, quota));
        assert.ok(calls <= 2 * ok + 1, `calls ${calls} successes ${ok}`);
      },
    ),
  );
});
