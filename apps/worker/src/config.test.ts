// WORKER_BULK_CONCURRENCY: its default follows WORKER_CONCURRENCY, and a value above it stops the worker
// with exit code 2 and a message naming the variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, parseEnv } from '@podset/config';
import { bulkConcurrency, workerEnv } from './config.ts';

const resolve = (env: Record<string, string>) => bulkConcurrency(parseEnv(workerEnv, env));

test('unset: an eighth of WORKER_CONCURRENCY, at least 1', () => {
  assert.equal(resolve({}), 1, 'default concurrency 8');
  assert.equal(resolve({ WORKER_CONCURRENCY: '16' }), 2);
  assert.equal(resolve({ WORKER_CONCURRENCY: '32' }), 4);
  assert.equal(resolve({ WORKER_CONCURRENCY: '7' }), 1);
  assert.equal(resolve({ WORKER_CONCURRENCY: '1' }), 1);
});

test('set: any value from 1 to WORKER_CONCURRENCY', () => {
  assert.equal(resolve({ WORKER_BULK_CONCURRENCY: '1' }), 1);
  assert.equal(resolve({ WORKER_BULK_CONCURRENCY: '8' }), 8, 'equal: no limit');
});

test('0, a fraction or more than WORKER_CONCURRENCY are refused, naming the variable', () => {
  assert.throws(
    () => resolve({ WORKER_BULK_CONCURRENCY: '0' }),
    /WORKER_BULK_CONCURRENCY: must be at least 1, got 0/,
  );
  assert.throws(
    () => resolve({ WORKER_BULK_CONCURRENCY: '1.5' }),
    /WORKER_BULK_CONCURRENCY: must be a whole number/,
  );
  assert.throws(
    () => resolve({ WORKER_CONCURRENCY: '4', WORKER_BULK_CONCURRENCY: '5' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.problems.length === 1 &&
      err.problems[0]?.variable === 'WORKER_BULK_CONCURRENCY' &&
      /must be at most WORKER_CONCURRENCY \(4\), got 5/.test(err.message),
  );
});
