// The watcher as the process it runs as (src/main.ts), with a real Redis, against an API server address
// that refuses connections: over several lease retries it names the NetworkPolicy podset-api-server-egress
// in its namespace exactly once; API_SERVER_EGRESS=port-only warns once at start; a bad value is exit 2.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, Proc, useRedis, waitFor } from '@podset/testkit';

const REPO = path.resolve(import.meta.dirname, '../../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');
const MAIN = path.join(REPO, 'apps/watcher/src/main.ts');

const redis = useRedis();
let dir: string;
let kubeconfig: string;
let server: string;

before(async () => {
  await redis.ready;
  dir = mkdtempSync(path.join(os.tmpdir(), 'api-unreachable-'));
  // A port nothing listens on: every connection is refused.
  server = `http://127.0.0.1:${await freePort()}`;
  kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "${server}"}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
});

after(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function startWatcher(extra: Record<string, string>): Proc {
  return new Proc({
    name: 'watcher (API unreachable)',
    command: NODE,
    args: [MAIN],
    env: {
      PATH: process.env.PATH,
      KUBECONFIG: kubeconfig,
      REDIS_URL: redis.url,
      QUEUE_NAME: 'unreachable',
      QUEUE_PREFIX: 'au',
      HOLDER_IDENTITY: 'w1',
      // Short, so the standby polls the Lease every ~300 ms: several retries within a second or two.
      LEASE_DURATION_SECONDS: '2',
      HTTP_PORT: '0',
      LOG_LEVEL: 'info',
      POD_NAMESPACE: 'podset-system',
      ...extra,
    },
  });
}

const withMsg = (proc: Proc, start: string) =>
  proc.lines().filter((l) => {
    try {
      return String((JSON.parse(l) as { msg?: unknown }).msg).startsWith(start);
    } catch {
      return false;
    }
  });

test('refused at start: one line naming podset-api-server-egress over several retries; port-only warned once', async () => {
  const proc = startWatcher({ API_SERVER_EGRESS: 'port-only' });
  try {
    // Each failed poll of the Lease logs this (the watcher's own retry, unchanged).
    await waitFor('five failed Lease requests', () => withMsg(proc, 'lease request failed').length >= 5, {
      timeoutMs: 60_000,
      describe: () => proc.tail(30),
      giveUp: () => (proc.running ? undefined : 'the watcher exited'),
    });
    const unreachable = withMsg(proc, 'cannot reach the API server');
    assert.equal(unreachable.length, 1, proc.tail(40));
    const line = JSON.parse(unreachable[0]!) as Record<string, unknown>;
    assert.equal(line['level'], 40); // pino's warn
    assert.equal(line['server'], server);
    assert.equal(line['code'], 'ECONNREFUSED');
    assert.equal(line['networkPolicy'], 'podset-api-server-egress');
    assert.equal(line['namespace'], 'podset-system');
    assert.match(
      String(line['msg']),
      /NetworkPolicy podset-api-server-egress in namespace podset-system: it allows TCP 443 and 6443 to any address/,
    );
    assert.equal(withMsg(proc, 'egress to the API server is limited by port only').length, 1, proc.tail(40));
  } finally {
    await proc.stop();
  }
});

test('confined: no port-only warning; the unreachable line still comes once', async () => {
  const proc = startWatcher({ API_SERVER_EGRESS: 'confined' });
  try {
    await waitFor('three failed Lease requests', () => withMsg(proc, 'lease request failed').length >= 3, {
      timeoutMs: 60_000,
      describe: () => proc.tail(30),
      giveUp: () => (proc.running ? undefined : 'the watcher exited'),
    });
    assert.equal(withMsg(proc, 'cannot reach the API server').length, 1, proc.tail(40));
    assert.equal(withMsg(proc, 'egress to the API server is limited by port only').length, 0, proc.tail(40));
  } finally {
    await proc.stop();
  }
});

test('a bad API_SERVER_EGRESS is a usage error naming the variable and its values', async () => {
  const proc = startWatcher({ API_SERVER_EGRESS: 'open' });
  const exit = await proc.exited;
  assert.equal(exit.code, 2, proc.tail(20));
  assert.match(proc.tail(20), /API_SERVER_EGRESS: must be one of port-only, confined, got "open"/);
});
