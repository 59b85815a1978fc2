// main.ts as a process: configuration errors name the variable; SIGTERM exits 0.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Proc, useRedis } from '@podset/testkit';

const root = path.resolve(import.meta.dirname, '../../..');
const node = path.join(root, 'node_modules/.bin/node');
const main = path.join(root, 'apps/worker/src/main.ts');

const redis = useRedis();
let dir: string;
let kubeconfig: string;
before(async () => {
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
  await rm(dir, { recursive: true, force: true });
});

function run(env: Record<string, string>): Proc {
  const proc = new Proc({
    name: 'podset-worker',
    command: node,
    args: [main],
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
  });
  const timer = setTimeout(() => void proc.kill(), 30_000);
  void proc.exited.then(() => clearTimeout(timer));
  return proc;
}

test('invalid configuration: exit 2 and every bad variable named', async () => {
  const p = run({
    KUBECONFIG: kubeconfig,
    WORKER_CONCURRENCY: 'many',
    KUBE_QPS: '-3',
    REDIS_URL: 'http://x',
  });
  assert.equal((await p.exited).code, 2);
  assert.match(p.tail(), /WORKER_CONCURRENCY: must be a whole number/);
  assert.match(p.tail(), /KUBE_QPS: must be at least 0/);
  assert.match(p.tail(), /REDIS_URL: must use redis:/);
});

test('a missing kubeconfig file is named', async () => {
  const p = run({ KUBECONFIG: path.join(dir, 'nope'), REDIS_URL: redis.url });
  assert.equal((await p.exited).code, 2);
  assert.match(p.tail(), /KUBECONFIG/);
});

test('SIGTERM: logs JSON, stops cleanly, exits 0', async () => {
  const p = run({ KUBECONFIG: kubeconfig, REDIS_URL: redis.url, HTTP_PORT: '0', QUEUE_NAME: 'main-test' });
  await p.waitForLine(/worker started/, 20_000);
  assert.equal((await p.stop()).code, 0, p.describe());
  const lines = p
    .lines()
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string });
  assert.ok(lines.some((l) => l.msg === 'worker stopped'));
});
