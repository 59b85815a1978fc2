// The node agent's command line as a user meets it: --help, a bad flag, a kubeconfig that is not there, a
// cluster that does not answer. Each is named, with exit 2 for usage and 1 for a failed start.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { compileCacheEnv } from '@podset/testkit';
import { NODE, REPO } from './support.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'node-agent-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function agent(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      NODE,
      [path.join(REPO, 'tools/node-agent/src/main.ts'), ...args],
      { cwd: REPO, timeout: 60_000, env: { PATH: process.env.PATH, HOME: dir, ...compileCacheEnv() } },
      (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr }),
    ),
  );
}

test('--help prints the usage and exits 0', async () => {
  const r = await agent(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^usage: npm run node-agent -- --kubeconfig PATH/);
});

test('a bad flag or value: exit 2, named, with the usage', async () => {
  const r = await agent(['--nodes', 'lots']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--nodes must be an integer in \[1, 1000\], got "lots"/);
  assert.match(r.stderr, /usage: npm run node-agent/);
});

test('a kubeconfig that is not there: exit 2, the file named', async () => {
  const r = await agent(['--kubeconfig', path.join(dir, 'nope')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--kubeconfig .*nope: ENOENT/);
});

test('a cluster that does not answer: exit 1, the failed request named', async () => {
  const kubeconfig = path.join(dir, 'dead');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  const r = await agent(['--kubeconfig', kubeconfig]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /"msg":"node agent failed to start"/);
  assert.match(r.stdout, /POST https:\/\/127\.0\.0\.1:1\/api\/v1\/nodes: connect ECONNREFUSED/);
});
