// The watcher's watch calls against kube-sim over HTTP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { watchApiOf } from '../src/kube-api.ts';

const { kube } = useSimCluster({ sim: { controllers: false }, crd: false });

test("the watcher's pod watch gives objects without managedFields (it never reads them)", async () => {
  const start = await kube.pods.list('default');
  await kube.pods.create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'a', labels: { 'podset.io/name': 'ps' } },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  });
  const stored = await kube.pods.get('default', 'a');
  assert.ok(Array.isArray((stored.metadata as Record<string, unknown>).managedFields));
  const ac = new AbortController();
  const api = watchApiOf(kube);
  const seen = [];
  for await (const line of api.watch('pods', 'default', {
    resourceVersion: start.metadata.resourceVersion!,
    allowWatchBookmarks: false,
    timeoutSeconds: 30,
    signal: ac.signal,
  })) {
    seen.push(line);
    ac.abort();
  }
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.type, 'ADDED');
  const metadata = seen[0]!.object.metadata as Record<string, unknown>;
  assert.equal(metadata.name, 'a');
  assert.equal(metadata.uid, stored.metadata.uid);
  assert.ok(!('managedFields' in metadata));
});
