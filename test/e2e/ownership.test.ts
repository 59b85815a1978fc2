// Ownership as a ReplicaSet keeps it, seen from kubectl: `kubectl delete ps --cascade=orphan` leaves the
// pods running, freed of their ownerReference by the garbage collector, and the operator's cleanup deletes
// none of them; a pod relabelled out of its PodSet is released (and replaced), and outlives it; an ownerless
// pod with its label is adopted and counted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { DELETION_COST_ANNOTATION } from '@podset/reconcile';
import { NAME_LABEL, activePodsOf, isActive } from './support/check.ts';
import { FAST_PODS, applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'ownership', controllerOptions: { ...FAST_PODS } });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
});
after(async () => {
  await env?.close();
});

const labelled = (name: string) => env.pods().filter((p) => p.metadata.labels?.[NAME_LABEL] === name);

test('kubectl delete ps --cascade=orphan: the PodSet goes, its pods stay, running, without an ownerReference to it', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('keep.yaml', [podSetManifest('keep', 3)])]);
  await env.waitConverged(['keep']);
  const ps = env.podSet('keep') as KubeObject;
  const uid = ps.metadata.uid as string;
  const names = activePodsOf(ps, env.pods())
    .map((p) => p.metadata.name as string)
    .sort();
  assert.equal(names.length, 3);
  const since = new Date().toISOString();

  const out = await env.kubectl(['delete', 'ps', 'keep', '--cascade=orphan', '--timeout=60s']);
  assert.match(out.stdout, /podset\.podset\.io "keep" deleted/);
  await env.waitFor('the PodSet to be gone', () => (env.podSet('keep') ? ['keep still exists'] : []));
  const left = labelled('keep');
  assert.deepEqual(left.map((p) => p.metadata.name as string).sort(), names, 'every pod is still there');
  for (const p of left) {
    assert.ok(isActive(p), `${p.metadata.name} is running, not terminating`);
    const refs = p.metadata.ownerReferences ?? [];
    assert.deepEqual(
      refs.filter((r) => r.uid === uid),
      [],
      `${p.metadata.name} no longer refers to the deleted PodSet`,
    );
  }
  const deletes = env.sim.audit
    .query({ since })
    .filter((e) => e.user === 'worker' && e.resource === 'pods' && e.verb === 'delete');
  assert.deepEqual(deletes, [], 'the worker deleted no pod');
  env.assertAllRunning();
});

const ownerUids = (p: KubeObject | undefined) => (p?.metadata.ownerReferences ?? []).map((r) => r.uid);
const pod = (name: string) => env.pods().find((p) => p.metadata.name === name);

async function eventReasons(podset: string): Promise<string[]> {
  const out = await env.kubectl(['get', 'events', '-o', 'json']);
  const items = (
    JSON.parse(out.stdout) as { items: { reason?: string; involvedObject?: { name?: string } }[] }
  ).items;
  return items.filter((e) => e.involvedObject?.name === podset).map((e) => e.reason ?? '');
}

let released = '';

test('kubectl label pod P podset.io/name-: P keeps running, freed of its ownerReference, and is replaced; deleting the PodSet later leaves P', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('web.yaml', [podSetManifest('web', 3)])]);
  await env.waitConverged(['web']);
  const ps = env.podSet('web') as KubeObject;
  const uid = ps.metadata.uid as string;
  const mine = activePodsOf(ps, env.pods()).map((p) => p.metadata.name as string);
  released = mine[0] as string;

  await env.kubectl(['label', 'pod', released, `${NAME_LABEL}-`]);
  await env.waitFor(`${released} to be released`, () =>
    ownerUids(pod(released)).includes(uid) ? [`${released} still refers to web`] : [],
  );
  await env.waitConverged(['web']);
  const now = activePodsOf(env.podSet('web') as KubeObject, env.pods()).map((p) => p.metadata.name);
  assert.equal(now.length, 3, 'web has 3 pods again');
  assert.ok(!now.includes(released), 'a replacement, not the released pod');
  assert.ok(isActive(pod(released) as KubeObject), `${released} keeps running`);
  assert.ok((await eventReasons('web')).includes('Released'), 'a Released Event on web');

  await env.kubectl(['delete', 'ps', 'web', '--timeout=60s']);
  await env.waitFor('web’s own pods to be gone', () =>
    env
      .pods()
      .filter((p) => ownerUids(p).includes(uid))
      .map((p) => `pod ${p.metadata.name} of web still exists`),
  );
  assert.ok(isActive(pod(released) as KubeObject), `${released} outlives the PodSet`);
  env.assertAllRunning();
});

test('an ownerless pod with the PodSet’s label is adopted and counted', async () => {
  assert.ok(released, 'the released pod of the test before');
  await env.kubectl(['apply', '-f', env.writeManifest('web-2.yaml', [podSetManifest('web', 2)])]);
  await env.waitConverged(['web']);
  const uid = env.podSet('web')?.metadata.uid as string;
  // Which of the 3 goes is the ranking's choice: with all three running and ready, the youngest by
  // creationTimestamp, which has whole-second precision, so a fast run ties them and the name decides
  // (web-2's pods can sort after the released one, and the adopted pod is then deleted moments after its
  // adoption, before a poll sees it). A deletion cost, as a user would set, makes it another pod.
  await env.kubectl(['annotate', 'pod', released, `${DELETION_COST_ANNOTATION}=100`]);
  await env.kubectl(['label', 'pod', released, `${NAME_LABEL}=web`]);
  await env.waitFor(`${released} to be adopted`, () =>
    ownerUids(pod(released)).includes(uid) ? [] : [`${released} owners ${ownerUids(pod(released))}`],
  );
  const ref = pod(released)?.metadata.ownerReferences?.[0];
  assert.equal(ref?.controller, true, 'as its controller');
  assert.equal(ref?.blockOwnerDeletion, true);
  // Counted: 3 pods of the template for 2 replicas, so one goes.
  await env.waitConverged(['web']);
  const kept = activePodsOf(env.podSet('web') as KubeObject, env.pods()).map((p) => p.metadata.name);
  assert.equal(kept.length, 2);
  assert.ok(kept.includes(released), `the costlier ${released} is kept, one of web's own goes`);
  assert.ok((await eventReasons('web')).includes('Adopted'), 'an Adopted Event on web');
  env.assertAllRunning();
});

// kube-sim's garbage collector frees the pods within moments of the delete, often before a worker reads
// the PodSet: without it, the `orphan` finalizer stays, and only the operator's own choice shows.
test('while the orphan finalizer is on, the cleanup deletes no pod and lets the PodSet go', async () => {
  const noGc = await startEnv({
    name: 'ownership-nogc',
    controllerOptions: { ...FAST_PODS, garbageCollector: false },
  });
  try {
    await applyCrd(noGc);
    noGc.startWatcher('watcher-0');
    noGc.startWorker('worker-0');
    await noGc.kubectl(['apply', '-f', noGc.writeManifest('keep.yaml', [podSetManifest('keep', 2)])]);
    await noGc.waitConverged(['keep']);
    const ps = noGc.podSet('keep') as KubeObject;
    const names = activePodsOf(ps, noGc.pods()).map((p) => p.metadata.name as string);
    await noGc.kubectl(['delete', 'ps', 'keep', '--cascade=orphan', '--wait=false']);
    await noGc.waitFor('the operator to remove its finalizer', () => {
      const fins = noGc.podSet('keep')?.metadata.finalizers ?? [];
      return fins.includes('podset.io/cleanup') ? [`finalizers ${fins.join(', ')}`] : [];
    });
    assert.deepEqual(noGc.podSet('keep')?.metadata.finalizers, ['orphan'], 'only the collector’s is left');
    const pods = noGc.pods().filter((p) => names.includes(p.metadata.name as string));
    assert.equal(pods.length, 2, 'both pods are there');
    assert.ok(pods.every(isActive), 'and neither is being deleted');
    noGc.assertAllRunning();
  } finally {
    await noGc.close();
  }
});
