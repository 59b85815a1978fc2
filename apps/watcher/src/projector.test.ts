import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProjectionWriter } from '@podset/state';
import { silentLogger } from '@podset/log';
import { Projector } from './projector.ts';
import type { ListedPage } from './watch-loop.ts';

/** The projection's calls the projector makes, recorded (no Redis). */
function fakeProjection() {
  const calls = { ready: 0, retired: 0, sweeps: [] as string[], listed: [] as string[] };
  let epoch = 0;
  const projection = {
    nextEpoch: async () => ++epoch,
    epoch: async () => epoch,
    sweep: async (kind: string, ns: string | undefined, e: number) => (
      calls.sweeps.push(`${kind} ${ns ?? '*'} ${e}`),
      0
    ),
    foldListed: async (kind: string, items: unknown[], e: number, stream?: string) =>
      void calls.listed.push(`${kind} ${items.length} ${e} ${stream}`),
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

test("a relisted page is folded under its stream's epoch, with the stream (an entry stamped above its counter is replaced)", async () => {
  const { projection, calls } = fakeProjection();
  const p = new Projector(projection, ['pods/ns'], silentLogger);
  await p.relistStarted('pods/ns');
  const pod = { metadata: { name: 'a', namespace: 'ns' } };
  await p.listed(
    { stream: 'pods/ns', resource: 'pods', objects: [pod], cause: 'test' } as unknown as ListedPage,
    () => 'ns/web',
  );
  assert.deepEqual(calls.listed, ['pod 1 1 pods/ns']);
});

test('a batch whose epochs are known issues its folds in the call; one that must read an epoch first keeps the order', async () => {
  const folded: string[] = [];
  const { projection } = fakeProjection();
  let epochRead: (() => void) | undefined;
  Object.assign(projection, {
    foldEach: async (items: { object: { metadata: { name: string } }; epoch: number }[]) =>
      items.map((i) => (folded.push(`${i.object.metadata.name}@${i.epoch}`), { owed: false })),
    epoch: () => new Promise<number>((resolve) => (epochRead = () => resolve(7))),
  });
  const p = new Projector(projection, ['pods/*', 'pods/ns'], silentLogger);
  await p.relistStarted('pods/*');
  const event = (name: string, stream: string) => ({
    key: 'ns/web',
    ev: {
      stream,
      resource: 'pods' as const,
      type: 'MODIFIED' as const,
      rv: '1',
      object: { metadata: { name, namespace: 'ns' } },
    },
  });
  const first = p.admit([event('a', 'pods/*')]);
  assert.deepEqual(folded, ['a@1'], 'issued before admit returned: no turn of promises before it');
  await first;
  // An unknown epoch: read first, and the batch after it waits for it to issue.
  const second = p.admit([event('b', 'pods/ns')]);
  const third = p.admit([event('c', 'pods/*')]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(folded, ['a@1'], 'neither issued while the epoch is read');
  epochRead!();
  await Promise.all([second, third]);
  assert.deepEqual(folded, ['a@1', 'b@7', 'c@1']);
});
