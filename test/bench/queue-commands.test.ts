// bench/queue-commands.ts, as documented: it counts a small run and exits by itself (it used to print its
// counts and then never exit: a client it had left connected retried the stopped Redis for ever).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');

test('queue-commands.ts with MONITOR on prints its counts and exits 0 by itself', async () => {
  const outcome = await new Promise<{ code: number | string; stdout: string }>((resolve) => {
    execFile(
      NODE,
      [path.join(REPO, 'bench/queue-commands.ts'), '--jobs', '30'],
      // Bounds a hang only (a few seconds on a quiet machine): past it the child is killed and the code is
      // its signal, not 0.
      { cwd: REPO, timeout: 120_000, maxBuffer: 16 << 20 },
      (err, stdout) => {
        const code = err === null ? 0 : (err.code ?? err.signal ?? 1);
        resolve({ code: typeof code === 'number' || typeof code === 'string' ? code : 1, stdout });
      },
    );
  });
  assert.equal(outcome.code, 0, 'exited by itself');
  assert.match(outcome.stdout, /commands per finished job: \d+(\.\d+)?/);
  assert.match(outcome.stdout, /moveToFinished 1\.00 \//);
});
