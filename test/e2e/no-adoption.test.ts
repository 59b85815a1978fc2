// A new PodSet with the name of a deleted one never adopts the old one's pods still controlled by the old
// UID. It counts only its own, and never writes to the old ones (no delete, no patch), whether scaling up,
// down, or being deleted. (Ownerless ones with its label are adopted, as a ReplicaSet does: ownership.test.ts.)
//
// To keep the old pods around deterministically, this cluster runs without the garbage collector,
// and the old PodSet is deleted while no worker runs, its finalizer removed by hand (what an admin
// does with a stuck finalizer): its pods then outlive it, still controlled by its UID.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { NAME_LABEL, activePodsOf, controlledBy, isActive } from './support/check.ts';
import {
  FAST_PODS,
  applyCrd,
  podSetManifest,
  startEnv,
  type OperatorEnv,
  type Proc,
} from './support/harness.ts';

let env: OperatorEnv;
let workers: Proc[] = [];
before(async () => {
  env = await startEnv({ name: 'adoption', controllerOptions: { ...FAST_PODS, garbageCollector: false } });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  workers = [env.startWorker('worker-0'), env.startWorker('worker-1')];
});
after(async () => {
  await env?.close();
});

test('a new PodSet with the same name never adopts or touches the old one’s pods', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('reuse-1.yaml', [podSetManifest('reuse', 3)])]);
  await env.waitConverged(['reuse']);
  const old = env.podSet('reuse') as KubeObject;
  const oldUid = old.metadata.uid as string;
  const oldNames = activePodsOf(old, env.pods()).map((p) => p.metadata.name as string);
  assert.equal(oldNames.length, 3);

  // The old PodSet goes away while its pods stay.
  const stopped = workers;
  for (const w of workers) assert.equal((await w.stop()).code, 0, `${w.name} exits 0 on SIGTERM`);
  await env.kubectl(['delete', 'ps', 'reuse', '--wait=false']);
  await env.kubectl(['patch', 'ps', 'reuse', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  await env.waitFor('the old PodSet to be gone', () => (env.podSet('reuse') ? ['reuse still exists'] : []));
  const leftovers = () => env.pods().filter((p) => oldNames.includes(p.metadata.name as string));
  const snapshot = new Map(leftovers().map((p) => [p.metadata.name as string, p.metadata.resourceVersion]));
  assert.equal(snapshot.size, 3, 'all three old pods are still there');
  assert.equal(leftovers().filter((p) => controlledBy(p, oldUid)).length, 3, 'all still the old UID’s');
  assert.ok(leftovers().every(isActive), 'the old pods are running, not terminating');

  const since = new Date().toISOString();
  workers = [env.startWorker('worker-2'), env.startWorker('worker-3')];
  await env.kubectl(['apply', '-f', env.writeManifest('reuse-2.yaml', [podSetManifest('reuse', 2)])]);
  const untouched = () => {
    const problems: string[] = [];
    const now = new Map(leftovers().map((p) => [p.metadata.name as string, p]));
    for (const [name, rv] of snapshot) {
      const p = now.get(name);
      if (!p) problems.push(`old pod ${name}: expected untouched, saw it deleted`);
      else if (p.metadata.resourceVersion !== rv) {
        problems.push(
          `old pod ${name}: expected untouched (rv ${rv}), saw rv ${p.metadata.resourceVersion}, ` +
            `owners ${JSON.stringify(p.metadata.ownerReferences)}, deletionTimestamp ${p.metadata.deletionTimestamp}`,
        );
      }
    }
    const writes = env.sim.audit
      .query({ since })
      .filter(
        (e) => e.user === 'worker' && e.resource === 'pods' && oldNames.includes(e.name) && e.verb !== 'get',
      );
    for (const e of writes) problems.push(`worker ${e.verb} of old pod ${e.name} (code ${e.code})`);
    return problems;
  };
  const own = () => {
    const ps = env.podSet('reuse');
    return ps ? activePodsOf(ps, env.pods()).map((p) => p.metadata.name as string) : [];
  };

  for (const replicas of [2, 5, 0]) {
    if (replicas !== 2) await env.kubectl(['scale', 'ps', 'reuse', `--replicas=${replicas}`]);
    await env.waitConverged(['reuse']);
    const ps = env.podSet('reuse') as KubeObject;
    assert.notEqual(ps.metadata.uid, oldUid, 'a new object');
    assert.equal(own().filter((n) => oldNames.includes(n)).length, 0, 'none of its pods is an old one');
    const podNames = (ps as { status?: { podNames?: string[] } }).status?.podNames ?? [];
    assert.deepEqual(
      podNames.filter((n) => oldNames.includes(n)),
      [],
      `status.podNames (${replicas} replicas) lists no old pod`,
    );
    assert.deepEqual(untouched(), [], `old pods untouched at ${replicas} replicas`);
  }

  // Deleting the new PodSet: its cleanup removes its own pods only.
  await env.kubectl(['scale', 'ps', 'reuse', '--replicas=2']);
  await env.waitConverged(['reuse']);
  const mine = own();
  await env.kubectl(['delete', 'ps', 'reuse', '--timeout=60s']);
  await env.waitFor('the new PodSet’s own pods to be gone', () =>
    env
      .pods()
      .filter((p) => mine.includes(p.metadata.name as string))
      .map((p) => `pod ${p.metadata.name} of the new PodSet still exists`),
  );
  assert.deepEqual(untouched(), [], 'old pods untouched after the new PodSet was deleted');
  assert.equal(
    env.pods().filter((p) => p.metadata.labels?.[NAME_LABEL] === 'reuse').length,
    3,
    'exactly the three old pods remain',
  );
  env.assertAllRunning(stopped);
});
