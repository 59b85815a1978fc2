// The chaos run's over-creation verdict (support/history.ts) around an etcd restore: the pods a restore
// brings back are the restored cluster's, not the operator's extra; a pod made on the restored API server
// by a plan read before the restore is reported, not counted; any other pod past the bound is counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { NAME_LABEL, PODS, PODSETS } from '../e2e/support/check.ts';
import { History } from './support/history.ts';

const UID = 'ps-uid';

function podSet(replicas: number): KubeObject {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'default', uid: UID },
    spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'busybox' }] } } },
  } as unknown as KubeObject;
}

function pod(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      labels: { [NAME_LABEL]: 'web' },
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: UID, controller: true },
      ],
    },
    status: { phase: 'Running' },
  } as unknown as KubeObject;
}

/** replicas 4 (bound 5) with pods p0..p3; a backup; scaled to 1 (p1..p3 deleted); restored from the backup. */
function restoredWithFourPods(): History {
  const h = new History();
  h.on({ type: 'ADDED', resource: PODSETS, object: podSet(4) });
  const pods = [0, 1, 2, 3].map((i) => pod(`p${i}`));
  for (const p of pods) h.on({ type: 'ADDED', resource: PODS, object: p });
  h.on({ type: 'MODIFIED', resource: PODSETS, object: podSet(1) });
  for (const p of pods.slice(1)) h.on({ type: 'DELETED', resource: PODS, object: p });
  h.replaced([podSet(4)], pods);
  return h;
}

test('pods the restore brings back are not over-creation', () => {
  const h = restoredWithFourPods();
  assert.deepEqual(h.overCreation(Date.now()), { pods: 0, problems: [] });
});

test('pods planned before the restore and made after it are reported, not counted', () => {
  const h = restoredWithFourPods();
  for (const name of ['s0', 's1', 's2']) {
    const p = pod(name);
    h.plannedBeforeRestore(p);
    h.on({ type: 'ADDED', resource: PODS, object: p });
  }
  assert.deepEqual(h.overCreation(Date.now()), { pods: 0, problems: [] });
  assert.deepEqual(h.madeFromBeforeRestore, ['s0', 's1', 's2']);
  assert.deepEqual(h.rollouts.violations, [], 'nor judged by the rollout bound (replicas + maxSurge)');
});

test('any other pod past replicas + 25 % is counted, after a restore too', () => {
  const h = restoredWithFourPods();
  for (const name of ['x0', 'x1', 'x2']) h.on({ type: 'ADDED', resource: PODS, object: pod(name) });
  const over = h.overCreation(Date.now());
  assert.equal(over.pods, 2, '7 active for a bound of 5');
  assert.match(over.problems[0] ?? '', /default\/web .* had 7 active pods at once, largest spec.replicas 5/);
  assert.match(
    h.rollouts.violations.join('\n'),
    /a create took it to 6 active pods; replicas \+ maxSurge is at most 5/,
  );
});
