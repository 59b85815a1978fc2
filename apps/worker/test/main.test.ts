// main.ts as a process: configuration errors name the variable; SIGTERM exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startRedis, type RedisServer } from '@podset/testkit';

const root = path.resolve(import.meta.dirname, '../../..');
const node = path.join(root, 'node_modules/.bin/node');
const main = path.join(root, 'apps/worker/src/main.ts');

let redis: RedisServer;
let dir: string;
let kubeconfig: string;
before(async () => {
  redis = await startRedis();
  dir = await mkdtemp(path.join(os.tmpdir(), 'podset-worker-main-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{ name: c, cluster: { server: "http://127.0.0.1:1", insecure-skip-tls-verify: true } }]',
      'users: [{ name: u, user: { token: t } }]',
      'contexts: [{ name: x, context: { cluster: c, user: u } }]',
      'current-context: x',
    ].join('\n'),
  );
});
after(async () => {
  await redis.close();
  await rm(dir, { recursive: true, force: true });
});

function run(env: Record<string, string>): {
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  kill: (s: NodeJS.Signals) => void;
  stdout: () => string;
} {
  const child = spawn(node, [main], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  void done.then(() => clearTimeout(timer));
  return { done, kill: (s) => child.kill(s), stdout: () => stdout };
}

test('invalid configuration: exit 2 and every bad variable named', async () => {
  const { done } = run({
    KUBECONFIG: kubeconfig,
    WORKER_CONCURRENCY: 'many',
    KUBE_QPS: '-3',
    REDIS_URL: 'http://x',
  });
  const r = await done;
  assert.equal(r.code, 2);
  assert.match(r.stderr, /WORKER_CONCURRENCY: must be a whole number/);
  assert.match(r.stderr, /KUBE_QPS: must be at least 0/);
  assert.match(r.stderr, /REDIS_URL: must use redis:/);
});

test('a missing kubeconfig file is named', async () => {
  const r = await run({ KUBECONFIG: path.join(dir, 'nope'), REDIS_URL: redis.url }).done;
  assert.equal(r.code, 2);
  assert.match(r.stderr, /KUBECONFIG/);
});

test('SIGTERM: logs JSON, stops cleanly, exits 0', async () => {
  const p = run({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, HTTP_PORT: '0', QUEUE_NAME: 'main-test' });
  const deadline = Date.now() + 20_000;
  while (!p.stdout().includes('worker started') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.match(p.stdout(), /worker started/);
  p.kill('SIGTERM');
  const r = await p.done;
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { msg: string });
  assert.ok(lines.some((l) => l.msg === 'worker stopped'));
});
