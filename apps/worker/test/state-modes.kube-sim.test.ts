// The controller's core scenarios in both state modes, against kube-sim and a real Redis: reading the API
// (GET + consistent LIST), and reading a projection that a small watch loop folds as the watcher would —
// so it lags the API, as in production. Each scenario asserts only what must hold in either mode: the
// pods a PodSet ends with, and that no pod is created or deleted twice on the way.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Pod, PodSet } from '@podset/kube';
import type { ProjectedPod, ProjectedPodSet } from '@podset/state';
import { ProjectionPair as Projection } from '../../../libs/state/test/support/projection-pair.ts';
import * as planner from '@podset/reconcile';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { waitFor } from '@podset/testkit';
import { apiState } from '../src/api-state.ts';
import type { Controller } from '../src/controller.ts';
import { projectionState } from '../src/projection-state.ts';
import type { StateSource } from '../src/state-source.ts';
import {
  createNamespace,
  createPodSet as createPodSetIn,
  testController,
  apiReads,
  testTags,
} from './kube-sim-setup.ts';

let seq = 0;
const stops: AbortController[] = [];

const { sim, kube, client } = useSimCluster({
  // No garbage collector: a deleted namesake's leftover pods stay until the controller would touch them.
  sim: { controllerOptions: { garbageCollector: false } },
  redis: true,
});
after(async () => {
  for (const s of stops) s.abort();
});

/**
 * The watcher's part, in miniature: list a namespace's PodSets and pods, fold them, mark the projection
 * ready, then fold every watch event until the test ends.
 */
async function feed(projection: Projection, ns: string): Promise<void> {
  const stop = new AbortController();
  stops.push(stop);
  const foldPod = async (type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod) => {
    const key = planner.podSetKeyOf(pod);
    if (key !== undefined) await projection.foldPod(key, type, pod as unknown as ProjectedPod, 1);
  };
  const foldPodSet = (type: 'ADDED' | 'MODIFIED' | 'DELETED', ps: PodSet) =>
    projection.foldPodSet(`${ns}/${ps.metadata.name}`, type, ps as unknown as ProjectedPodSet, 1);
  const [podSets, pods] = await Promise.all([kube.podSets.list(ns), kube.pods.list(ns)]);
  for (const ps of podSets.items) await foldPodSet('ADDED', ps);
  for (const p of pods.items) await foldPod('ADDED', p);
  await projection.markReady();
  const follow = async <T extends Pod | PodSet>(
    events: AsyncGenerator<{ type: string; object: T }>,
    apply: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T) => Promise<unknown>,
  ) => {
    try {
      for await (const ev of events) {
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')
          await apply(ev.type, ev.object);
      }
    } catch (err) {
      if (!stop.signal.aborted) throw err;
    }
  };
  void follow(
    kube.podSets.watch(ns, { resourceVersion: podSets.metadata?.resourceVersion, signal: stop.signal }),
    foldPodSet,
  );
  void follow(
    kube.pods.watch(ns, { resourceVersion: pods.metadata?.resourceVersion, signal: stop.signal }),
    foldPod,
  );
}

const modes: Record<string, (ns: string) => Promise<StateSource>> = {
  api: async () => apiState(kube),
  projection: async (ns) => {
    const projection = new Projection({
      client,
      prefix: '{podset}',
      queueName: `modes-${++seq}`,
      tags: testTags,
    });
    await feed(projection, ns);
    return projectionState(projection, apiReads(kube));
  },
};

interface Scene {
  ns: string;
  controller: Controller;
  /** Whether a settled pass reads the API (the projection's does not). */
  readsApi: boolean;
  /** Reconcile as the queue would (every request and requeue) until `done`. */
  converge(done: () => Promise<boolean>): Promise<void>;
}

async function scene(mode: string): Promise<Scene> {
  const ns = await createNamespace(kube, `m${++seq}-${process.pid}`);
  const controller = testController(kube, {
    state: await modes[mode]!(ns),
    notReadyRequeueMs: 100,
    warningsOnly: true,
  });
  return {
    ns,
    controller,
    readsApi: mode === 'api',
    converge: async (done) => {
      await waitFor(`${ns} converged`, async () => {
        await controller.syncHandler(`${ns}/web`);
        return done();
      });
    },
  };
}

const createPodSet = (ns: string, replicas: number) => createPodSetIn(kube, ns, 'web', replicas);

const activePods = async (ns: string) =>
  (await kube.pods.list(ns, { labelSelector: 'podset.io/name=web' })).items.filter(
    (p) => p.metadata.deletionTimestamp === undefined,
  );
const ready = (ns: string, n: number) => async () =>
  (await kube.podSets.get(ns, 'web')).status?.readyReplicas === n && (await activePods(ns)).length === n;
const audited = (ns: string, verb: string) =>
  sim.audit.query({ namespace: ns, verb, resource: 'pods' }).filter((e) => (e.code ?? 0) < 300).length;

const scenarios: { name: string; run(s: Scene): Promise<void> }[] = [
  {
    name: 'a PodSet of 3 converges with 3 creates, then a pass writes nothing',
    async run({ ns, controller, converge, readsApi }) {
      await createPodSet(ns, 3);
      await converge(ready(ns, 3));
      assert.equal(audited(ns, 'create'), 3, 'no pod created twice');
      await waitFor(
        'settled',
        async () => Object.keys(await controller.syncHandler(`${ns}/web`)).length === 0,
      );
      // Counted, not timed: the audit's timestamps have millisecond resolution.
      const before = sim.audit.query({ namespace: ns }).length;
      await controller.syncHandler(`${ns}/web`);
      const calls = sim.audit
        .query({ namespace: ns })
        .slice(before)
        .map((e) => `${e.verb} ${e.resource}`);
      assert.deepEqual(
        calls,
        readsApi ? ['get podsets', 'list pods'] : [],
        'no write; reads as the mode does',
      );
    },
  },
  {
    name: 'scale 4 → 1: exactly 3 deletes',
    async run({ ns, converge }) {
      await createPodSet(ns, 4);
      await converge(ready(ns, 4));
      await kube.podSets.patch(ns, 'web', { spec: { replicas: 1 } });
      await converge(ready(ns, 1));
      assert.equal(audited(ns, 'delete'), 3, 'no pod deleted twice');
      assert.equal(audited(ns, 'create'), 4);
    },
  },
  {
    name: 'a 409 on status: re-read and re-planned, no pod created twice',
    async run({ ns, controller, converge }) {
      await createPodSet(ns, 2);
      // The pass that creates the pods meets the conflict on its status write: its re-plan sees them.
      sim.faults.addError({ verb: 'update', resource: 'podsets', code: 409, reason: 'Conflict', times: 1 });
      await controller.syncHandler(`${ns}/web`);
      await converge(ready(ns, 2));
      const puts = sim.audit.query({ namespace: ns, verb: 'update', resource: 'podsets' });
      assert.equal(puts[0]?.code, 409, 'the first status write met the conflict');
      assert.equal(audited(ns, 'create'), 2);
    },
  },
  {
    name: 'a deleted pod is replaced: exactly one create more',
    async run({ ns, converge }) {
      await createPodSet(ns, 2);
      await converge(ready(ns, 2));
      const [victim] = await activePods(ns);
      await kube.pods.delete(ns, victim!.metadata.name!, { gracePeriodSeconds: 0 });
      await converge(
        async () =>
          (await ready(ns, 2)()) &&
          !((await kube.podSets.get(ns, 'web')).status?.podNames ?? []).includes(victim!.metadata.name!),
      );
      assert.equal(audited(ns, 'create'), 3, 'one replacement, not two');
    },
  },
  {
    name: "pods of another owner (a deleted namesake's) are neither counted nor touched; an ownerless one is adopted",
    async run({ ns, converge }) {
      await kube.pods.create(ns, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'web-foreign',
          labels: { 'podset.io/name': 'web' },
          ownerReferences: [
            {
              apiVersion: 'podset.io/v1',
              kind: 'PodSet',
              name: 'web',
              uid: 'not-this-one',
              controller: true,
            },
          ],
        },
        spec: { containers: [{ name: 'app', image: 'busybox' }] },
      } as Pod);
      // And one with our label but no controller at all: adopted (claim.ts).
      await kube.pods.create(ns, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web-orphan', labels: { 'podset.io/name': 'web' } },
        spec: { containers: [{ name: 'app', image: 'busybox' }] },
      } as Pod);
      await createPodSet(ns, 2);
      await converge(async () => (await kube.podSets.get(ns, 'web')).status?.readyReplicas === 2);
      const status = (await kube.podSets.get(ns, 'web')).status;
      assert.equal(status?.replicas, 2);
      assert.equal(status?.podNames?.includes('web-foreign'), false);
      // Adopted (a patch), then, being of no template of its own (outdated), replaced as a rollout would.
      const writes = (verb: string) =>
        sim.audit
          .query({ namespace: ns, verb, resource: 'pods' })
          .filter((e) => (e.code ?? 0) < 300)
          .map((e) => e.name);
      assert.deepEqual(writes('patch'), ['web-orphan'], 'the orphan adopted, the foreign pod untouched');
      assert.deepEqual(writes('delete'), ['web-orphan'], 'the foreign pod is not ours to delete');
    },
  },
  {
    name: 'a deleted PodSet: its pods go, the finalizer is removed',
    async run({ ns, converge }) {
      await createPodSet(ns, 3);
      await converge(ready(ns, 3));
      await kube.podSets.delete(ns, 'web');
      await converge(() =>
        kube.podSets.get(ns, 'web').then(
          () => false,
          () => true,
        ),
      );
      assert.equal(audited(ns, 'delete'), 3);
    },
  },
];

for (const mode of Object.keys(modes)) {
  for (const s of scenarios) test(`${mode}: ${s.name}`, async () => s.run(await scene(mode)));
}
