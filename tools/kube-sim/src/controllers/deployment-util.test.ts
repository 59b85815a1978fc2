import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../apimachinery/types.ts';
import {
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  REVISION,
  REVISION_HISTORY,
  deploymentSpec,
  equalIgnoreHash,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  newReplicaSetAnnotations,
  replicaSetFraction,
  resolveFenceposts,
  scaledValue,
} from './deployment-util.ts';
import { obj } from './fake-cluster.ts';

const deployment = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): KubeObject =>
  obj('apps/v1', 'Deployment', 'web', 'default', { metadata: { annotations }, spec });
const rs = (replicas: number, annotations: Record<string, string> = {}): KubeObject =>
  obj('apps/v1', 'ReplicaSet', `web-${replicas}`, 'default', {
    metadata: { annotations },
    spec: { replicas },
  });

test('absent fields read as the API server defaults them', () => {
  assert.deepEqual(deploymentSpec(deployment({})), {
    replicas: 1,
    recreate: false,
    maxSurge: '25%',
    maxUnavailable: '25%',
    minReadySeconds: 0,
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
    paused: false,
  });
});

test('int-or-percent values: surge rounds up, unavailable down; both 0 makes unavailable 1', () => {
  assert.equal(scaledValue('25%', 10, true), 3);
  assert.equal(scaledValue('25%', 10, false), 2);
  assert.equal(scaledValue(4, 10, true), 4);
  const s = (rollingUpdate: Record<string, unknown>, replicas = 10) =>
    deploymentSpec(deployment({ replicas, strategy: { type: 'RollingUpdate', rollingUpdate } }));
  assert.deepEqual(resolveFenceposts(s({})), { surge: 3, unavailable: 2 });
  assert.deepEqual(resolveFenceposts(s({ maxSurge: 0, maxUnavailable: '5%' })), { surge: 0, unavailable: 1 });
  assert.equal(maxUnavailable(s({ maxUnavailable: 20 }, 3)), 3, 'never more than replicas');
  const recreate = deploymentSpec(deployment({ replicas: 4, strategy: { type: 'Recreate' } }));
  assert.equal(maxSurge(recreate), 0);
  assert.equal(maxUnavailable(recreate), 0);
});

test('NewRSNewReplicas: the new ReplicaSet grows within replicas + maxSurge', () => {
  const d = deployment({ replicas: 4, strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
  const old = rs(4);
  const fresh = rs(0);
  assert.equal(newRSNewReplicas(d, [old, fresh], fresh), 1);
  assert.equal(newRSNewReplicas(d, [rs(4), rs(1)], rs(1)), 1, 'at the surge limit: no growth');
  assert.equal(newRSNewReplicas(d, [rs(2), rs(2)], rs(2)), 3);
  assert.equal(newRSNewReplicas(deployment({ replicas: 4, strategy: { type: 'Recreate' } }), [], rs(0)), 4);
});

test('revision annotations: copied Deployment annotations, revision raised, history kept on a rollback', () => {
  const d = deployment(
    { replicas: 3 },
    {
      'kubernetes.io/change-cause': 'v2',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      [REVISION]: '2',
    },
  );
  assert.deepEqual(newReplicaSetAnnotations(d, {}, 1, true), {
    'kubernetes.io/change-cause': 'v2',
    [REVISION]: '1',
    [DESIRED_REPLICAS]: '3',
    [MAX_REPLICAS]: '4',
  });
  const rolledBack = newReplicaSetAnnotations(d, { [REVISION]: '1' }, 3, false);
  assert.equal(rolledBack[REVISION], '3');
  assert.equal(rolledBack[REVISION_HISTORY], '1');
  const again = newReplicaSetAnnotations(d, { [REVISION]: '3', [REVISION_HISTORY]: '1' }, 5, false);
  assert.equal(again[REVISION_HISTORY], '1,3');
  assert.equal(newReplicaSetAnnotations(d, { [REVISION]: '7' }, 5, false)[REVISION], '7', 'never lowered');
});

test('proportional scaling: a ReplicaSet grows in proportion to the max-replicas it was sized for', () => {
  // 10 → 20 replicas (maxSurge 3 → 5): a ReplicaSet of 6 sized for 13 goes to round(6 * 25 / 13) = 12.
  const d = deployment({ replicas: 20 });
  assert.equal(replicaSetFraction(rs(6, { [MAX_REPLICAS]: '13' }), d), 6);
  assert.equal(replicaSetFraction(rs(6), deployment({ replicas: 0 })), -6);
});

test('EqualIgnoreHash: the pod-template-hash label does not count', () => {
  const t = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'x' }] } };
  const hashed = { ...t, metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } } };
  assert.ok(equalIgnoreHash(t, hashed));
  assert.ok(!equalIgnoreHash(t, { ...t, spec: { containers: [{ name: 'a', image: 'y' }] } }));
});
