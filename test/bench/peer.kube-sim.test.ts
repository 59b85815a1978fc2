// The bench's peer controller against kube-sim: PodSets converge from the informer caches, with exactly
// as many pod creates as replicas (expectations: no second round while the cache lags), scale down
// deletes the surplus, and stop() returns.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { loadKubeConfig } from '@podset/kube';
import { waitFor } from '@podset/testkit';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { API_VERSION, KIND, NAME_LABEL } from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { createEventRecorder } from '../../apps/worker/src/events.ts';
import { createPeer, type Peer } from '../../bench/peer/controller.ts';

const NS = 'default';
const { sim, kube, ready } = useSimCluster();
let peer: Peer;
const errors: string[] = [];

before(async () => {
  await ready;
  const kubeConfig = loadKubeConfig({ kubeconfig: sim.kubeconfigPath });
  // A slow API makes the cache lag behind the creates: without expectations the peer would create twice.
  sim.faults.set({ latencyMs: 30 });
  peer = createPeer({
    kubeConfig,
    kube,
    namespace: NS,
    concurrency: 4,
    createBurst: 4,
    events: createEventRecorder({ kube, log: silentLogger, instance: 'peer-test' }),
    onError: (key, err) => errors.push(`${key}: ${String(err)}`),
  });
  await peer.start();
});

const podSet = (name: string, replicas: number) => ({
  apiVersion: API_VERSION,
  kind: KIND,
  metadata: { name, namespace: NS },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    },
  },
});

async function activePods(name: string): Promise<number> {
  const list = await kube.pods.list(NS, { labelSelector: `${NAME_LABEL}=${name}` });
  return list.items.filter((p) => p.metadata.deletionTimestamp === undefined).length;
}

async function converged(name: string, replicas: number): Promise<boolean> {
  const ps = await kube.podSets.get(NS, name);
  return (
    (await activePods(name)) === replicas &&
    ps.status?.readyReplicas === replicas &&
    ps.status?.replicas === replicas
  );
}

test('PodSets converge with exactly one create per replica, then scale down', async () => {
  const sizes: Record<string, number> = { 'peer-a': 3, 'peer-b': 7, 'peer-c': 12 };
  for (const [name, n] of Object.entries(sizes)) await kube.podSets.create(NS, podSet(name, n) as never);
  for (const [name, n] of Object.entries(sizes))
    await waitFor(`${name} converged`, () => converged(name, n), 30_000);
  const creates = sim.audit.query({ verb: 'create', resource: 'pods' });
  assert.ok(
    creates.every((e) => e.code === 201),
    'no create failed',
  );
  assert.equal(creates.length, 3 + 7 + 12, 'no over-create');
  // The same Events as the operator records (equal work): one per PodSet's creates, naming the pods.
  const events = await kube.events.list(NS);
  for (const name of Object.keys(sizes)) {
    const created = events.items.filter(
      (e) => e.involvedObject.name === name && e.reason === 'SuccessfulCreate',
    );
    assert.ok(created.length >= 1, `${name}: a SuccessfulCreate Event`);
    assert.match(created[0]!.message ?? '', new RegExp(`^Created pods?: ${name}-`));
  }

  const ps = await kube.podSets.get(NS, 'peer-c');
  await kube.podSets.patch(NS, 'peer-c', { spec: { replicas: 4 } } as never);
  assert.ok(ps.metadata.uid);
  await waitFor('peer-c scaled down', () => converged('peer-c', 4), 30_000);
  const deletes = sim.audit.query({ verb: 'delete', resource: 'pods' });
  assert.equal(deletes.length, 12 - 4, 'exactly the surplus deleted');
  await waitFor('a SuccessfulDelete Event', async () =>
    (await kube.events.list(NS)).items.some(
      (e) => e.involvedObject.name === 'peer-c' && e.reason === 'SuccessfulDelete',
    ),
  );
  assert.equal(sim.audit.query({ verb: 'create', resource: 'pods' }).length, 22, 'no create on scale down');
  assert.ok(peer.stats().reconciles > 0);
});

test('stop() ends the informers and the reconcile loops', async () => {
  // Resolves only once every reconcile loop has returned (and the informers stopped); a leaked watch
  // would keep this file's process from ending.
  await peer.stop();
  // A status write can meet a spec change the cache has not seen yet (409, retried); nothing else fails.
  assert.deepEqual(
    errors.filter((e) => !/409 Conflict/.test(e)),
    [],
  );
});
