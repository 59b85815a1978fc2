// The worker's store client on a real Redis: its auto-pipelining is what the test measures, so it
// needs a redis-server (not allowed in the unit tier).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { urlConnector } from '@podset/redis';
import { useRedis } from '@podset/testkit';
import { STORE_CLIENT_TUNING } from '../src/store-client.ts';

const redis = useRedis();

test("a reconcile's state read and parked-record read, asked in one tick, reach Redis in one write", async () => {
  const client = urlConnector(redis.url).client(STORE_CLIENT_TUNING);
  try {
    await client.ping();
    const stream = (client as unknown as { stream: { write: (...a: unknown[]) => boolean } }).stream;
    let writes = 0;
    const write = stream.write.bind(stream);
    stream.write = (...a: unknown[]) => {
      writes++;
      return write(...a);
    };
    await Promise.all([client.eval('return 1', 0), client.get('podset:parked:default/web')]);
    assert.equal(writes, 1);
  } finally {
    client.disconnect();
  }
});
