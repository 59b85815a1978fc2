// A test process that dies without cleaning up (SIGKILL: a runner's timeout, a killed terminal) leaves
// neither its temp dir nor its redis-server behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isAlive, waitFor } from '@podset/testkit';

const FIXTURE = path.join(import.meta.dirname, 'support/fixtures/env-parent.ts');

test('a SIGKILLed test process leaves no e2e temp dir and no redis-server', async () => {
  const parent = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  parent.stdout.on('data', (c: Buffer) => (out += c.toString()));
  try {
    const started = await waitFor('the environment to start', () => out.includes('\n'), 60_000);
    assert.ok(started);
    const { dir, redisPid } = JSON.parse(out.split('\n')[0]!) as { dir: string; redisPid: number };
    assert.ok(existsSync(dir), 'the temp dir exists while the test runs');
    assert.ok(isAlive(redisPid));
    parent.kill('SIGKILL');
    await waitFor('redis-server to be gone', () => !isAlive(redisPid), 15_000);
    await waitFor(`${dir} to be removed`, () => !existsSync(dir), 15_000);
  } finally {
    if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
  }
});
