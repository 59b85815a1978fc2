// The watcher's watch over @podset/kube against kube-sim: what its events carry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kube } from '@podset/kube';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { watchApiOf, type WatchLine } from '../src/kube-api.ts';

const { kube } = useSimCluster({ sim: { controllers: false }, crd: false });

test("the watcher's watch leaves metadata.managedFields out of its objects (it never reads them)", async () => {
  const start = await kube.pods.list('default');
  await kube.pods.create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'wa1', labels: { 'podset.io/name': 'wa' } },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  });
  const written = (await kube.pods.get('default', 'wa1')).metadata as { managedFields?: unknown[] };
  assert.ok((written.managedFields?.length ?? 0) > 0, 'the API server wrote managedFields');

  const ac = new AbortController();
  const seen: WatchLine[] = [];
  for await (const batch of watchApiOf(kube).watch('pods', 'default', {
    labelSelector: 'podset.io/name',
    resourceVersion: start.metadata.resourceVersion!,
    allowWatchBookmarks: false,
    timeoutSeconds: 30,
    signal: ac.signal,
  })) {
    seen.push(...batch);
    ac.abort();
  }
  assert.equal(seen[0]?.type, 'ADDED');
  assert.equal(seen[0]?.object.metadata?.name, 'wa1');
  assert.ok(!('managedFields' in (seen[0]?.object.metadata ?? {})));
});

test('with podReadPauseMs, pods created during a pause come out in one batch', async () => {
  const start = await kube.pods.list('default');
  const pod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'podset.io/name': 'paced' } },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  });
  await kube.pods.create('default', pod('paced-a'));
  const ac = new AbortController();
  const batches: string[][] = [];
  // A pause far longer than three creates take: they are all written while the watch is not reading.
  for await (const batch of watchApiOf(kube, { podReadPauseMs: 2000 }).watch('pods', 'default', {
    labelSelector: 'podset.io/name=paced',
    resourceVersion: start.metadata.resourceVersion!,
    allowWatchBookmarks: false,
    timeoutSeconds: 30,
    signal: ac.signal,
  })) {
    batches.push(batch.map((line) => line.object.metadata?.name ?? ''));
    if (batches.length === 1) {
      for (const name of ['paced-b', 'paced-c', 'paced-d']) await kube.pods.create('default', pod(name));
    } else ac.abort();
  }
  assert.deepEqual(batches, [['paced-a'], ['paced-b', 'paced-c', 'paced-d']]);
});

test('podReadPauseMs paces the pod watch only: a PodSet watch is read as its events arrive', () => {
  const asked: { resource: string; readPauseMs: number | undefined }[] = [];
  const recorder = (resource: string) => ({
    watchBatches: (_namespace: string | undefined, opts: { readPauseMs?: number }) => {
      asked.push({ resource, readPauseMs: opts.readPauseMs });
      return (async function* () {})();
    },
  });
  const fake = { pods: recorder('pods'), podSets: recorder('podsets') } as unknown as Kube;
  const opts = { allowWatchBookmarks: false, timeoutSeconds: 1, signal: new AbortController().signal };
  const paced = watchApiOf(fake, { podReadPauseMs: 50 });
  paced.watch('pods', undefined, opts);
  paced.watch('podsets', undefined, opts);
  watchApiOf(fake).watch('pods', undefined, opts);
  assert.deepEqual(asked, [
    { resource: 'pods', readPauseMs: 50 },
    { resource: 'podsets', readPauseMs: undefined },
    { resource: 'pods', readPauseMs: undefined },
  ]);
});
