import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RedisClient } from '@podset/redis';
import { RecordingLogger } from '@podset/testkit';
import type { OutOfBounds } from './out-of-bounds.ts';
import { PAUSED_REASON, watchQueueSettings } from './queue-settings.ts';

/** A Redis stand-in holding one hash (the meta), for hmget and hdel. */
function metaHash(fields: Record<string, string>): RedisClient {
  return {
    hmget: (_key: string, ...names: string[]) => Promise.resolve(names.map((n) => fields[n] ?? null)),
    hdel: (_key: string, ...names: string[]) => {
      for (const n of names) delete fields[n];
      return Promise.resolve(names.length);
    },
  } as unknown as RedisClient;
}

const neverSleeps = { sleep: () => new Promise<void>(() => undefined) };

function setup(fields: Record<string, string>) {
  const reports: OutOfBounds[] = [];
  const paused: boolean[] = [];
  const log = new RecordingLogger();
  const watch = watchQueueSettings({
    client: metaHash(fields),
    metaKey: 'q:meta',
    log,
    outOfBounds: (r) => reports.push(r),
    paused: (p) => paused.push(p),
    clock: neverSleeps,
  });
  return { watch, reports, paused, log };
}

test('paused is alerted, not undone: the reason, the gauge, one log line per pause and one when it ends', async () => {
  const fields: Record<string, string> = { paused: '1', 'opts.maxLenEvents': '10000' };
  const { watch, paused, log, reports } = setup(fields);
  try {
    assert.equal(await watch.check(), PAUSED_REASON);
    assert.equal(await watch.check(), PAUSED_REASON);
    assert.equal(fields.paused, '1', "the pause stays: it may be an operator's");
    delete fields.paused;
    assert.equal(await watch.check(), undefined);
    assert.equal(paused.at(-1), false);
    assert.ok(paused.includes(true));
    assert.equal(log.messages().filter((l) => l.includes('is paused')).length, 1, 'once per pause');
    assert.equal(log.messages().filter((l) => l.includes('resumed')).length, 1);
    assert.deepEqual(reports, []);
    assert.equal(fields['opts.maxLenEvents'], '10000', "BullMQ's own settings are left alone");
  } finally {
    watch.close();
  }
});

test('a global concurrency or rate limit (never set by this project) is removed and reported by name', async () => {
  const fields: Record<string, string> = { concurrency: '0', max: '1', duration: '3600000' };
  const { watch, reports } = setup(fields);
  try {
    assert.equal(await watch.check(), undefined);
    assert.deepEqual(fields, {});
    assert.deepEqual(
      reports.map((r) => [r.what, r.key]),
      [
        ['queue-setting', 'concurrency'],
        ['queue-setting', 'max'],
        ['queue-setting', 'duration'],
      ],
    );
  } finally {
    watch.close();
  }
});
