// The watcher's watch over @podset/kube against kube-sim: what its events carry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
