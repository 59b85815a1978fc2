import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { isAlive, ping, waitFor } from '../src/index.ts';

const PARENT = new URL('./fixtures/redis-parent.ts', import.meta.url);

/** The data dir redis-server runs in (its cwd: redis chdirs into --dir). */
const cwdOf = (pid: number) => readlinkSync(`/proc/${pid}/cwd`);

test('a SIGKILLed test process leaves no redis-server and no temp dir behind', async () => {
  const parent = spawn(process.execPath, [PARENT.pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => parent.once('exit', resolve));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: parent.stdout }).once('line', resolve);
      parent.once('exit', (code) => reject(new Error(`parent exited (${code}) before starting Redis`)));
    });
    const { pid, port } = JSON.parse(line) as { pid: number; port: number };
    assert.ok(await ping(port), 'redis answers while its parent lives');
    const dir = cwdOf(pid);
    assert.ok(existsSync(dir), `data dir ${dir} in use`);

    parent.kill('SIGKILL');
    await exited;
    await waitFor('redis-server to be gone after its parent died', () => !isAlive(pid), 10_000);
    await waitFor(`the data dir ${dir} to be removed`, () => !existsSync(dir), 10_000);
  } finally {
    if (parent.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
  }
});
