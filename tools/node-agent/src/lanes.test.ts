import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lanes } from './lanes.ts';

test('one task at a time per lane, in order; other lanes run beside it', async () => {
  const lanes = new Lanes();
  const log: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const first = lanes.run('node-1', async () => {
    log.push('a start');
    await gate;
    log.push('a end');
  });
  const second = lanes.run('node-1', async () => {
    log.push('b');
  });
  const other = lanes.run('node-2', async () => {
    log.push('c');
  });
  await other;
  assert.deepEqual(log, ['a start', 'c'], 'b waits for a; c does not');
  release();
  await Promise.all([first, second]);
  assert.deepEqual(log, ['a start', 'c', 'a end', 'b']);
});

test('a failed task rejects its caller and does not stop the lane; idle lanes are forgotten', async () => {
  const lanes = new Lanes();
  await assert.rejects(
    lanes.run('n', async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(await lanes.run('n', async () => 7), 7);
  await new Promise((r) => setImmediate(r));
  assert.equal(lanes.busy, 0);
});
