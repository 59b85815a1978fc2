// The projection's source plans from this worker's own write of a PodSet while the projection still shows
// the version that write replaced — for OWN_WRITE_TRUST_MS at most. A write can be undone: kube-sim restored
// from a backup of its data dir (an etcd restore) brings back the version it replaced, resourceVersion and
// all, and the relisted projection shows exactly that. Trusted for ever, the write hid the lost status: the
// chaos run (seed 108) left a PodSet with readyReplicas 7 of 8 ready pods, never written again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodSet } from '@podset/kube';
import type { ProjectedPodSet } from '@podset/state';
import { ProjectionPair as Projection } from '../../../libs/state/test/support/projection-pair.ts';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { OWN_WRITE_TRUST_MS } from '../src/own-writes.ts';
import { projectionState } from '../src/projection-state.ts';
import { podSetRef, type KeyState } from '../src/state-source.ts';
import { apiReads, createPodSet, testTags } from './kube-sim-setup.ts';

const { kube, client } = useSimCluster({ sim: { controllers: false }, redis: true });

function found(state: KeyState) {
  assert.equal(state.kind, 'found');
  return state as Extract<KeyState, { kind: 'found' }>;
}

test('an own write the projection never shows is trusted for OWN_WRITE_TRUST_MS, then the API is read', async () => {
  const ref = podSetRef('default/own-write');
  const projection = new Projection({ client, prefix: '{podset}', queueName: 'own-write', tags: testTags });
  await projection.markReady();
  const podset = await createPodSet(kube, 'default', ref.name, 2, { finalized: true });
  await projection.foldPodSet(ref.key, 'ADDED', podset as unknown as ProjectedPodSet, 1);
  let now = 1_000_000;
  const source = projectionState(projection, apiReads(kube), { now: () => now });

  await source.read(ref); // as a reconcile does: it reads, then writes over what it read
  // Its write, as the worker was answered; the API then went back to before it (restored from a backup).
  const undone: PodSet = structuredClone(podset);
  undone.metadata.resourceVersion = String(Number(podset.metadata.resourceVersion) + 1000);
  undone.status = { replicas: 2, readyReplicas: 2 } as PodSet['status'];
  await source.wrote(ref.key, undone);

  now += 1_000;
  const leaning = found(await source.read(ref));
  assert.equal(leaning.podset.metadata.resourceVersion, undone.metadata.resourceVersion);
  assert.equal(leaning.authoritative, false);
  assert.equal(leaning.recheckAfterMs, OWN_WRITE_TRUST_MS - 1_000, 'the reconcile must look again then');

  now += OWN_WRITE_TRUST_MS - 1_000;
  const fromApi = found(await source.read(ref));
  assert.equal(fromApi.authoritative, true, 'past the trust, the API is read');
  assert.equal(fromApi.podset.metadata.resourceVersion, podset.metadata.resourceVersion);
  assert.equal(fromApi.recheckAfterMs, undefined);

  // The write is forgotten: the projection, which agrees with the API, is planned from again.
  const after = found(await source.read(ref));
  assert.equal(after.authoritative, false);
  assert.equal(after.podset.metadata.resourceVersion, podset.metadata.resourceVersion);
  assert.equal(after.recheckAfterMs, undefined);
});

test('an own write the projection shows is not rechecked', async () => {
  const ref = podSetRef('default/own-write-shown');
  const projection = new Projection({
    client,
    prefix: '{podset}',
    queueName: 'own-write-shown',
    tags: testTags,
  });
  await projection.markReady();
  const podset = await createPodSet(kube, 'default', ref.name, 2, { finalized: true });
  await projection.foldPodSet(ref.key, 'ADDED', podset as unknown as ProjectedPodSet, 1);
  const source = projectionState(projection, apiReads(kube), { now: () => 0 });
  await source.read(ref);
  const written = await kube.podSets.patch('default', ref.name, {
    metadata: { labels: { touched: 'yes' }, resourceVersion: podset.metadata.resourceVersion },
  });
  await source.wrote(ref.key, written);
  await projection.foldPodSet(ref.key, 'MODIFIED', written as unknown as ProjectedPodSet, 1);
  const state = found(await source.read(ref));
  assert.equal(state.podset.metadata.resourceVersion, written.metadata.resourceVersion);
  assert.equal(state.recheckAfterMs, undefined);
});
