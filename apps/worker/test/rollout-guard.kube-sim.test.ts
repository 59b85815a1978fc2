// A rollout deletes an outdated pod that is not available without touching availability — unless the pod
// becomes available between the plan and the delete. The delete carries the pod's resourceVersion as a
// precondition, so kube-sim (as a real API server) refuses it with 409, and the pod is kept. Here the pod
// becomes Ready at exactly that moment: right after the planner planned.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject as SimObject } from '@podset/kube-sim';
import * as planner from '@podset/reconcile';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import type { Plan, Pod, PodSet, ReconcileOptions } from '@podset/reconcile';
import { testController } from './kube-sim-setup.ts';

const { sim, kube } = useSimCluster();

test('an unavailable outdated pod that becomes ready between plan and delete is not deleted', async () => {
  const hooks: { afterPlan?: (plan: Plan) => void } = {};
  const controller = testController(kube, {
    planner: {
      ...planner,
      reconcile: (podset: PodSet, pods: readonly Pod[], now: Date | number, o?: ReconcileOptions): Plan => {
        const plan = planner.reconcile(podset, pods, now, o);
        hooks.afterPlan?.(plan);
        return plan;
      },
    },
  });
  // Pods of the first template stay Pending (not ready) for a minute.
  await kube.podSets.create('default', {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'guarded', namespace: 'default' },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { annotations: { 'kube-sim.podset.io/startup-delay-ms': '60000' } },
        spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] },
      },
    },
  } as never);
  await controller.syncHandler('default/guarded'); // finalizer, 2 creates
  const pods = () =>
    sim.cluster.list('pods', 'default').filter((p) => p.metadata.labels?.['podset.io/name'] === 'guarded');
  assert.equal(pods().length, 2);

  // A new template: both old pods are outdated and not available, so both are planned to go for free.
  const ps = await kube.podSets.get('default', 'guarded');
  await kube.podSets.patch('default', 'guarded', {
    spec: { template: { spec: { containers: [{ name: 'app', image: 'busybox:1.37' }] } } },
    metadata: { resourceVersion: ps.metadata.resourceVersion },
  } as never);
  let readied = '';
  hooks.afterPlan = (plan) => {
    const outdated = plan.deletes.filter((d) => d.reason === 'Outdated');
    if (outdated.length !== 2 || readied !== '') return;
    assert.ok(
      outdated.every((d) => d.resourceVersion !== undefined),
      'free deletes carry a resourceVersion',
    );
    // Between the plan and the delete, the first of them becomes Ready.
    readied = outdated[0]!.name;
    const pod = sim.cluster.get('pods', 'default', readied)!;
    sim.cluster.updateStatus('pods', {
      ...pod,
      status: {
        ...(pod.status as object),
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
      },
    } as SimObject);
  };
  await controller.syncHandler('default/guarded');
  assert.notEqual(readied, '', 'the rollout planned both outdated pods to go');
  const kept = sim.cluster.get('pods', 'default', readied);
  assert.ok(
    kept !== undefined && kept.metadata.deletionTimestamp === undefined,
    'the pod that became ready is kept',
  );
  const others = pods().filter(
    (p) =>
      p.metadata.name !== readied &&
      p.metadata.labels?.['podset.io/template-hash'] ===
        (kept.metadata.labels ?? {})['podset.io/template-hash'],
  );
  assert.ok(
    others.every((p) => p.metadata.deletionTimestamp !== undefined),
    'the other outdated pod went',
  );
});
