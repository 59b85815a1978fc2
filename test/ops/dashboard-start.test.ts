// The dashboard refuses to start without credentials, naming the variables to set.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { compileCacheEnv } from '@podset/testkit';
import { NODE, REPO } from '../e2e/support/harness.ts';
import { DASHBOARD_MAIN } from './support.ts';

function run(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [DASHBOARD_MAIN],
      { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...compileCacheEnv(), ...env }, timeout: 30_000 },
      (err, _stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stderr });
      },
    );
  });
}

test('no credentials: exit 2 with a message naming DASHBOARD_TOKEN and DASHBOARD_USER/DASHBOARD_PASSWORD', async () => {
  const r = await run({ KUBECONFIG: '/nonexistent' });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /DASHBOARD_TOKEN/);
  assert.match(r.stderr, /DASHBOARD_USER and DASHBOARD_PASSWORD/);
});

test('half a basic-auth pair, a short token or a short password is refused too', async () => {
  const half = await run({ DASHBOARD_USER: 'ops' });
  assert.equal(half.code, 2, half.stderr);
  assert.match(half.stderr, /DASHBOARD_PASSWORD: is required when DASHBOARD_USER is set/);
  const short = await run({ DASHBOARD_TOKEN: 'abc' });
  assert.equal(short.code, 2, short.stderr);
  assert.match(short.stderr, /DASHBOARD_TOKEN: must be at least 16 characters/);
  const weak = await run({ DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'hunter2' });
  assert.equal(weak.code, 2, weak.stderr);
  assert.match(weak.stderr, /DASHBOARD_PASSWORD: must be at least 12 characters/);
});
