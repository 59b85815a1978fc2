import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, parseEnv } from '@podset/config';
import { Cluster, Redis } from 'ioredis';
import { hashTag, redisConnector, redisEnv } from './connection.ts';

const spec = { ...redisEnv, QUEUE_PREFIX: redisEnv.REDIS_SENTINEL_NAME };
function config(env: Record<string, string>) {
  const parsed = parseEnv(spec, env);
  return { ...parsed, QUEUE_PREFIX: parsed.QUEUE_PREFIX ?? 'podset' };
}

function problems(env: Record<string, string>): string[] {
  try {
    redisConnector(config(env));
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems.map((p) => `${p.variable}: ${p.message}`);
  }
  return [];
}

test('hashTag follows Redis Cluster: the text between the first { and the next }, if not empty', () => {
  assert.equal(hashTag('{podset}'), 'podset');
  assert.equal(hashTag('app:{podset}:x'), 'podset');
  assert.equal(hashTag('{a}{b}'), 'a');
  assert.equal(hashTag('podset'), undefined);
  assert.equal(hashTag('{}podset'), undefined);
  assert.equal(hashTag('{podset'), undefined);
});

test('Cluster without a hash tag in QUEUE_PREFIX is refused, naming QUEUE_PREFIX', () => {
  const found = problems({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000', QUEUE_PREFIX: 'podset' });
  assert.equal(found.length, 1);
  assert.match(found[0]!, /^QUEUE_PREFIX: must contain a hash tag such as \{podset\}/);
  assert.deepEqual(problems({ REDIS_CLUSTER_NODES: 'r:7000', QUEUE_PREFIX: '{podset}' }), []);
});

test('Sentinel needs its master name; Sentinel and Cluster are exclusive; bad host:port items', () => {
  assert.match(problems({ REDIS_SENTINELS: 's1:26379' })[0]!, /^REDIS_SENTINEL_NAME: is required/);
  assert.match(problems({ REDIS_SENTINEL_NAME: 'mymaster' })[0]!, /^REDIS_SENTINELS: is required/);
  assert.ok(
    problems({
      REDIS_SENTINELS: 's1:26379',
      REDIS_SENTINEL_NAME: 'm',
      REDIS_CLUSTER_NODES: 'c:7000',
      QUEUE_PREFIX: '{p}',
    }).some((p) => p.startsWith('REDIS_CLUSTER_NODES: set together with REDIS_SENTINELS')),
  );
  assert.match(problems({ REDIS_SENTINELS: 's1:99999', REDIS_SENTINEL_NAME: 'm' })[0]!, /out of range/);
  assert.throws(() => config({ REDIS_CLUSTER_NODES: 'no-port' }), /REDIS_CLUSTER_NODES: item "no-port"/);
});

test('the connector makes clients of the configured kind; its target names no password', () => {
  const single = redisConnector(config({ REDIS_URL: 'redis://:secret@127.0.0.1:1/2' }));
  assert.equal(single.mode, 'single');
  assert.equal(single.target, 'redis://127.0.0.1:1/2');
  const sentinel = redisConnector(
    config({ REDIS_SENTINELS: '127.0.0.1:1,[::1]:2', REDIS_SENTINEL_NAME: 'm', REDIS_PASSWORD: 'pw' }),
  );
  assert.equal(sentinel.mode, 'sentinel');
  assert.doesNotMatch(sentinel.target, /pw/);
  const cluster = redisConnector(config({ REDIS_CLUSTER_NODES: '127.0.0.1:1', QUEUE_PREFIX: '{p}' }));
  assert.equal(cluster.mode, 'cluster');
  // lazy: the clients are built but never connected here.
  const clients = [single, sentinel, cluster].map((c) =>
    c.client({ maxRetriesPerRequest: null, lazyConnect: true, enableAutoPipelining: true }),
  );
  try {
    assert.ok(clients[0] instanceof Redis);
    assert.equal((clients[0] as Redis).options.password, 'secret');
    assert.equal((clients[0] as Redis).options.db, 2);
    assert.ok(clients[1] instanceof Redis);
    assert.deepEqual((clients[1] as Redis).options.sentinels, [
      { host: '127.0.0.1', port: 1 },
      { host: '::1', port: 2 },
    ]);
    assert.equal((clients[1] as Redis).options.password, 'pw');
    assert.ok(clients[2] instanceof Cluster);
    assert.equal((clients[2] as Cluster).options.redisOptions?.maxRetriesPerRequest, null);
    // Auto-pipelining for a single node and Sentinel; left off on Cluster (Redis's CROSSSLOT stays visible).
    assert.equal((clients[0] as Redis).options.enableAutoPipelining, true);
    assert.equal((clients[1] as Redis).options.enableAutoPipelining, true);
    assert.equal((clients[2] as Cluster).options.enableAutoPipelining, false);
  } finally {
    for (const c of clients) c.disconnect();
  }
});

test('REDIS_PASSWORD is merged into a REDIS_URL without one; a password in both places is refused', () => {
  const merged = redisConnector(config({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_PASSWORD: 'from-secret' }));
  const client = merged.client({ lazyConnect: true }) as Redis;
  try {
    assert.equal(client.options.password, 'from-secret');
  } finally {
    client.disconnect();
  }
  const both = problems({ REDIS_URL: 'redis://:in-url@127.0.0.1:1', REDIS_PASSWORD: 'from-secret' });
  assert.equal(both.length, 1);
  assert.match(both[0] ?? '', /^REDIS_PASSWORD: is set while REDIS_URL carries a password too/);
  assert.doesNotMatch(both[0] ?? '', /in-url|from-secret/);
});
