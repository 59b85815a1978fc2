import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProjectionWriter } from '@podset/state';
import { silentLogger } from './log.ts';
import { Projector } from './projector.ts';

/** The projection's calls the projector makes, recorded (no Redis). */
function fakeProjection() {
  const calls = { ready: 0, retired: 0, sweeps: [] as string[] };
  let epoch = 0;
  const projection = {
    nextEpoch: async () => ++epoch,
    epoch: async () => epoch,
    sweep: async (kind: string, ns: string | undefined, e: number) => (
      calls.sweeps.push(`${kind} ${ns ?? '*'} ${e}`),
      0
    ),
    markReady: async () => void calls.ready++,
    isReady: async () => calls.ready > 0,
    retireUntaggedLayout: async () => void calls.retired++,
  };
  return { projection: projection as unknown as ProjectionWriter, calls };
}

const info = (stream: string) => ({
  stream,
  resource: stream.startsWith('pods/') ? ('pods' as const) : ('podsets' as const),
  namespace: undefined,
});

test('ready once every stream has relisted; after a data loss, only once all of them have again', async () => {
  const { projection, calls } = fakeProjection();
  const p = new Projector(projection, ['podsets/*', 'pods/*'], silentLogger);
  assert.equal(await p.resumable(), false);
  assert.equal(calls.retired, 1, 'the untagged layout is retired before readiness is looked at');
  await p.relistStarted('podsets/*');
  await p.relistDone(info('podsets/*'));
  assert.equal(calls.ready, 0, 'the pods are not folded yet');
  await p.relistStarted('pods/*');
  await p.relistDone(info('pods/*'));
  assert.equal(calls.ready, 1);
  assert.deepEqual(calls.sweeps, ['podset * 1', 'pod * 2'], 'each relist sweeps at its own epoch');

  p.relistingAll();
  await p.relistStarted('podsets/*');
  await p.relistDone(info('podsets/*'));
  assert.equal(calls.ready, 1, 'not ready again before the pods stream has relisted too');
  await p.relistStarted('pods/*');
  await p.relistDone(info('pods/*'));
  assert.equal(calls.ready, 2);
});
