// The worker process refuses an inconsistent configuration at start, naming the variable.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const repo = path.resolve(import.meta.dirname, '../../..');

test('the worker refuses WORKER_BULK_CONCURRENCY above WORKER_CONCURRENCY at start: exit 2', async () => {
  const child = spawn(
    path.join(repo, 'node_modules/.bin/node'),
    [path.join(repo, 'apps/worker/src/main.ts')],
    {
      env: { ...process.env, WORKER_CONCURRENCY: '4', WORKER_BULK_CONCURRENCY: '5', HTTP_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  assert.equal(code, 2, stderr);
  assert.match(stderr, /WORKER_BULK_CONCURRENCY: must be at most WORKER_CONCURRENCY \(4\), got 5/);
});
