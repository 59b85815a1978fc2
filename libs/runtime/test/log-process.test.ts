// The apps' logger in a real process whose stdout reader goes away (defect: such an app hung on SIGTERM).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { test } from 'node:test';

const FIXTURE = path.join(import.meta.dirname, 'fixtures/log-until-term.ts');

/**
 * The fixture with stdout a pipe whose reader stops reading (the pipe fills), gets SIGTERM, and then goes
 * away (its read end closed): what a parent test killed with Ctrl-C or `npm run demo | head` does.
 */
async function stopWithStdoutGone(logger: 'runtime' | 'pino') {
  const child = spawn(process.execPath, [FIXTURE], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, LOGGER: logger },
  });
  try {
    await once(child.stdout, 'data');
    child.stdout.pause();
    // Keep reading nothing until the pipe is full: the child's writes then block or fail with EAGAIN.
    await new Promise((r) => setTimeout(r, 500));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    child.stdout.destroy(); // the reader goes away: the child's writes fail with EPIPE from now on
    const timeout = new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000).unref());
    return await Promise.race([exited, timeout]);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

test('an app whose stdout reader went away still stops on SIGTERM, exit 0 (pino’s own destination hung)', async () => {
  const outcome = await stopWithStdoutGone('runtime');
  assert.deepEqual(outcome, [0, null]);
});
