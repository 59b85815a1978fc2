// The state source chosen at start-up: with STATE_SOURCE=projection and no PROJECTION_HMAC_KEY nothing
// read from Redis could be checked, so reads go to the API; with a key, to the projection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kube } from '@podset/kube';
import type { RedisClient } from '@podset/redis';
import { EntryTags } from '@podset/state';
import { openStateSource } from './open-state-source.ts';
import { podSetRef } from './state-source.ts';

function deps(tags: EntryTags | undefined) {
  const seen: string[] = [];
  const kube = {
    podSets: {
      get: () => {
        seen.push('api');
        return Promise.reject(Object.assign(new Error('not found'), { statusCode: 404, code: 404 }));
      },
    },
  } as unknown as Kube;
  // Any Redis call fails, and says so: the projection was read.
  const redis = new Proxy(
    {},
    {
      get: () => () => {
        seen.push('redis');
        return Promise.reject(new Error('redis'));
      },
    },
  ) as unknown as RedisClient;
  const refused = () => undefined;
  return { seen, deps: { kube, redis, prefix: 'p', queueName: 'q', tags, refused } };
}

test('projection without a key: every read goes to the API', async () => {
  const { seen, deps: d } = deps(undefined);
  const source = openStateSource('projection', d);
  await source.read(podSetRef('ns/web')).catch(() => undefined);
  assert.deepEqual(seen, ['api']);
});

test('projection with a key: reads go to Redis', async () => {
  const { seen, deps: d } = deps(new EntryTags({ current: 'k'.repeat(32) }));
  const source = openStateSource('projection', d);
  await source.read(podSetRef('ns/web')).catch(() => undefined);
  assert.equal(seen[0], 'redis');
});
