// The StateSource contract, one table of cases run against both implementations (the API, and the
// watcher's projection in a real Redis), on kube-sim: what the controller may rely on whichever it has.
// The projection is folded here as the watcher would fold it — or, to play a stalled watch, not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod, PodSet } from '@podset/kube';
import type { FoldType, ProjectedPod, ProjectedPodSet } from '@podset/state';
import { ProjectionPair as Projection } from '../../../libs/state/test/support/projection-pair.ts';
import * as planner from '@podset/reconcile';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { apiState } from '../src/api-state.ts';
import { projectionState } from '../src/projection-state.ts';
import { podSetRef, type KeyState, type PodSetRef, type StateSource } from '../src/state-source.ts';
import { apiReads, createPodSet, testTags } from './kube-sim-setup.ts';

let seq = 0;

const { kube, client } = useSimCluster({ sim: { controllers: false }, redis: true });

/** One case's world: a PodSet in the API, the source under test, and the watcher's part. */
interface World {
  ref: PodSetRef;
  podset: PodSet;
  source: StateSource;
  /** The watcher delivers an event (a no-op for the API source, which keeps nothing). */
  fold(type: FoldType, obj: Pod | PodSet): Promise<void>;
}

const implementations: Record<string, (projection: Projection) => StateSource> = {
  api: () => apiState(kube),
  projection: (projection) => projectionState(projection, apiReads(kube)),
};

async function world(impl: string): Promise<World> {
  const name = `contract-${++seq}`;
  const ref = podSetRef(`default/${name}`);
  const projection = new Projection({
    client,
    prefix: '{podset}',
    queueName: `contract-${seq}`,
    tags: testTags,
  });
  await projection.markReady();
  const fold = async (type: FoldType, obj: Pod | PodSet) => {
    if (obj.kind === 'Pod') await projection.foldPod(ref.key, type, obj as unknown as ProjectedPod, 1);
    else await projection.foldPodSet(ref.key, type, obj as unknown as ProjectedPodSet, 1);
  };
  const podset = await createPodSet(kube, 'default', name, 2, { finalized: true });
  await fold('ADDED', podset);
  return { ref, podset, source: implementations[impl]!(projection), fold };
}

/** A pod labelled for `podset`, controlled by the PodSet of `ownerUid`. */
async function createPod(podset: PodSet, ownerUid = podset.metadata.uid!): Promise<Pod> {
  return kube.pods.create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${podset.metadata.name}-`,
      namespace: 'default',
      labels: { [planner.NAME_LABEL]: podset.metadata.name! },
      ownerReferences: [
        {
          apiVersion: 'podset.io/v1',
          kind: 'PodSet',
          name: podset.metadata.name!,
          uid: ownerUid,
          controller: true,
        },
      ],
    },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  } as Pod);
}

async function podNames(state: KeyState): Promise<string[]> {
  assert.equal(state.kind, 'found');
  return (await state.pods()).map((p) => p.metadata.name!).sort();
}

/** Shows our own writes or waits: the two answers a read after them may give. */
async function showsOrWaits(state: KeyState, shows: (names: string[]) => boolean): Promise<void> {
  if (state.kind === 'wait') {
    assert.ok(state.afterMs > 0, 'a wait says when to look again');
    assert.ok(state.reason !== '');
    return;
  }
  assert.ok(shows(await podNames(state)), 'a read that plans must show our own writes');
}

const cases: { name: string; run(w: World): Promise<void> }[] = [
  {
    name: 'a PodSet that does not exist is gone',
    async run(w) {
      assert.deepEqual(await w.source.read(podSetRef('default/never-created')), { kind: 'gone' });
    },
  },
  {
    name: 'a PodSet is found with the pods it controls; a namesake’s leftovers do not count',
    async run(w) {
      const mine = await createPod(w.podset);
      const leftover = await createPod(w.podset, 'uid-of-a-deleted-namesake');
      await w.fold('ADDED', mine);
      await w.fold('ADDED', leftover);
      const state = await w.source.read(w.ref);
      assert.equal(state.kind === 'found' && state.podset.metadata.uid, w.podset.metadata.uid);
      assert.deepEqual(await podNames(state), [mine.metadata.name]);
    },
  },
  {
    name: 'after our own creates, a read shows them or waits — also while the watch is stalled',
    async run(w) {
      const created = [await createPod(w.podset), await createPod(w.podset)];
      const names = created.map((p) => p.metadata.name!).sort();
      await w.source.created(w.ref.key, names);
      await showsOrWaits(await w.source.read(w.ref), (seen) => names.every((n) => seen.includes(n)));
      for (const p of created) await w.fold('ADDED', p);
      assert.deepEqual(await podNames(await w.source.read(w.ref)), names, 'shown once the watch catches up');
    },
  },
  {
    name: 'after our own deletes, a read no longer counts them or waits',
    async run(w) {
      const [keep, victim] = [await createPod(w.podset), await createPod(w.podset)];
      await w.fold('ADDED', keep);
      await w.fold('ADDED', victim);
      await kube.pods.delete('default', victim.metadata.name!, { gracePeriodSeconds: 0 });
      await w.source.deleted(w.ref.key, [victim.metadata.name!]);
      await showsOrWaits(await w.source.read(w.ref), (seen) => !seen.includes(victim.metadata.name!));
      // Its DELETED event, at a resourceVersion past every earlier one.
      await w.fold('DELETED', { ...victim, metadata: { ...victim.metadata, resourceVersion: '999999' } });
      assert.deepEqual(await podNames(await w.source.read(w.ref)), [keep.metadata.name]);
    },
  },
  {
    name: 'our own write of the PodSet: the next read has its resourceVersion (a write against it is no 409)',
    async run(w) {
      // As a reconcile does: it reads, then writes over what it read.
      await w.source.read(w.ref);
      const written = await kube.podSets.patch('default', w.ref.name, {
        metadata: { labels: { touched: 'yes' }, resourceVersion: w.podset.metadata.resourceVersion },
      });
      await w.source.wrote(w.ref.key, written);
      const state = await w.source.read(w.ref);
      assert.equal(
        state.kind === 'found' && state.podset.metadata.resourceVersion,
        written.metadata.resourceVersion,
      );
    },
  },
  {
    name: 'after a 409, the next read is as new as the API',
    async run(w) {
      // Someone else changed the PodSet; its event has not been folded (the projection is behind).
      const changed = await kube.podSets.patch('default', w.ref.name, { spec: { replicas: 5 } });
      w.source.conflicted(w.ref.key);
      const state = await w.source.read(w.ref);
      assert.equal(
        state.kind === 'found' && state.podset.metadata.resourceVersion,
        changed.metadata.resourceVersion,
      );
    },
  },
  {
    name: 'forget resolves to how much was removed',
    async run(w) {
      const removed = await w.source.forget(w.ref.key);
      assert.ok(Number.isInteger(removed) && removed >= 0);
    },
  },
];

for (const impl of Object.keys(implementations)) {
  for (const c of cases) {
    test(`${impl}: ${c.name}`, async () => c.run(await world(impl)));
  }
}
