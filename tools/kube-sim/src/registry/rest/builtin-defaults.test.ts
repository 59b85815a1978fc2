import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultBuiltin, generateJobSelector, initialStatus } from './builtin-defaults.ts';
import { defaultPodSpec, preparePod } from './pod-defaults.ts';
import type { JsonObject, KubeObject } from '../../apimachinery/types.ts';

const make = (spec: JsonObject, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name: 'x', ...(labels ? { labels } : {}) },
  spec,
});
const sp = (o: KubeObject) => o.spec as JsonObject;
const tpl = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'a', image: 'busybox' }] },
});

test('pod spec defaults: containers, ports, probes, env, volumes', () => {
  const spec = defaultPodSpec({
    containers: [
      {
        name: 'a',
        image: 'repo/app',
        ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
        readinessProbe: { httpGet: { port: 80 } },
        env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      },
      { name: 'b', image: 'repo/app@sha256:abc' },
    ],
    volumes: [{ name: 'scratch' }, { name: 'cfg', configMap: { name: 'c' } }],
  });
  const [a, b] = spec.containers as JsonObject[];
  assert.equal(a?.imagePullPolicy, 'Always', 'no tag: Always');
  assert.equal(b?.imagePullPolicy, 'IfNotPresent', 'a digest: IfNotPresent');
  assert.deepEqual(a?.ports, [
    { containerPort: 80, protocol: 'TCP' },
    { containerPort: 53, protocol: 'UDP' },
  ]);
  assert.deepEqual(a?.readinessProbe, {
    httpGet: { path: '/', scheme: 'HTTP', port: 80 },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  assert.deepEqual(a?.env, [
    { name: 'N', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
  ]);
  assert.deepEqual(spec.volumes, [
    { name: 'scratch', emptyDir: {} },
    { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } },
  ]);
  assert.equal(spec.enableServiceLinks, undefined, 'a template does not get what only pods get');
  assert.equal(sp(preparePod(make({ containers: [] }))).enableServiceLinks, true);
});

test('a Deployment keeps what it was given and defaults the rest', () => {
  const d = defaultBuiltin(
    'deployments.apps',
    make({ replicas: 0, strategy: { rollingUpdate: { maxSurge: 1 } }, template: tpl({ a: 'b' }) }),
  );
  assert.equal(sp(d).replicas, 0);
  assert.deepEqual(sp(d).strategy, {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 },
  });
  const recreate = defaultBuiltin('deployments.apps', make({ strategy: { type: 'Recreate' } }));
  assert.deepEqual(sp(recreate).strategy, { type: 'Recreate' });
});

test('a ReplicationController takes its selector and labels from its template', () => {
  const rc = defaultBuiltin('replicationcontrollers', make({ template: tpl({ app: 'r' }) }));
  assert.deepEqual(sp(rc).selector, { app: 'r' });
  assert.deepEqual(rc.metadata.labels, { app: 'r' });
  assert.equal(sp(rc).replicas, 1);
  const own = defaultBuiltin('replicationcontrollers', make({ template: tpl({ app: 'r' }) }, { mine: 'y' }));
  assert.deepEqual(own.metadata.labels, { mine: 'y' });
});

test('a Job: completions only with parallelism unset, the generated selector unless manual', () => {
  const parallel = defaultBuiltin('jobs.batch', make({ parallelism: 3, template: tpl({}) }));
  assert.equal(sp(parallel).completions, undefined);
  const perIndex = defaultBuiltin('jobs.batch', make({ backoffLimitPerIndex: 1, template: tpl({}) }));
  assert.equal(sp(perIndex).backoffLimit, 2147483647);
  const withLabels = generateJobSelector(
    defaultBuiltin('jobs.batch', make({ template: tpl({ app: 'j' }) })),
    'u1',
  );
  assert.deepEqual(
    withLabels.metadata.labels,
    { app: 'j' },
    'labels copied before the selector is generated',
  );
  const manual = make({
    manualSelector: true,
    selector: { matchLabels: { app: 'j' } },
    template: tpl({ app: 'j' }),
  });
  assert.equal(generateJobSelector(manual, 'u1'), manual);
});

test('a CronJob and the zero statuses', () => {
  const cj = defaultBuiltin(
    'cronjobs.batch',
    make({ schedule: '* * * * *', jobTemplate: { spec: { template: tpl({}) } } }),
  );
  assert.equal(sp(cj).concurrencyPolicy, 'Allow');
  assert.equal(sp(cj).successfulJobsHistoryLimit, 3);
  assert.equal(sp(cj).failedJobsHistoryLimit, 1);
  assert.deepEqual((sp(cj).jobTemplate as JsonObject).metadata, { creationTimestamp: null });
  assert.deepEqual(initialStatus('replicasets.apps'), { replicas: 0 });
  assert.deepEqual(initialStatus('deployments.apps'), {});
  assert.equal(initialStatus('configmaps'), undefined);
});

test('a pod update keeps the priority admission gave it and gets enableServiceLinks', () => {
  const stored = preparePod(make({ containers: [{ name: 'a', image: 'x' }] }));
  const { priority: _p, preemptionPolicy: _pp, enableServiceLinks: _e, ...rest } = sp(stored);
  const next = defaultBuiltin('pods', { ...stored, spec: rest }, stored);
  assert.deepEqual(next.spec, stored.spec);
});
