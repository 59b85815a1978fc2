import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultBuiltin } from './builtin-defaults.ts';
import type { JsonObject, KubeObject } from '../../apimachinery/types.ts';
import { goLabelSelector, validateWorkload, validateWorkloadUpdate } from './workload-validation.ts';

const make = (spec: JsonObject): KubeObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name: 'x' },
  spec,
});
const tpl = (labels: Record<string, string>, spec: JsonObject = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'a', image: 'busybox' }], ...spec },
});
const causes = (resource: string, spec: JsonObject) =>
  validateWorkload(resource, defaultBuiltin(resource, make(spec))).map((c) => `${c.field}: ${c.message}`);

test('a valid workload of each kind has no causes', () => {
  const sel = { matchLabels: { app: 'a' } };
  for (const r of ['deployments.apps', 'replicasets.apps', 'statefulsets.apps', 'daemonsets.apps'])
    assert.deepEqual(causes(r, { selector: sel, template: tpl({ app: 'a' }) }), [], r);
  assert.deepEqual(causes('replicationcontrollers', { template: tpl({ app: 'a' }) }), []);
  assert.deepEqual(
    causes('cronjobs.batch', {
      schedule: '@hourly',
      jobTemplate: { spec: { template: tpl({}, { restartPolicy: 'OnFailure' }) } },
    }),
    [],
  );
});

test('selectors: required, not empty, matching the template, by the rules of each kind', () => {
  assert.deepEqual(causes('daemonsets.apps', { selector: {}, template: tpl({ app: 'a' }) }), [
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset',
  ]);
  assert.deepEqual(causes('daemonsets.apps', { template: tpl({ app: 'a' }) }), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
  ]);
  assert.deepEqual(
    causes('statefulsets.apps', {
      selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['b'] }] },
      template: tpl({ app: 'a' }),
    }),
    [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    ],
  );
  assert.deepEqual(
    causes('replicationcontrollers', { selector: { app: 'b' }, template: tpl({ app: 'a' }) }),
    [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    ],
  );
});

test('restartPolicy and activeDeadlineSeconds of templates', () => {
  assert.deepEqual(
    causes('replicasets.apps', {
      selector: { matchLabels: { app: 'a' } },
      template: tpl({ app: 'a' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }),
    }),
    [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ],
  );
  assert.deepEqual(
    causes('cronjobs.batch', { schedule: '@daily', jobTemplate: { spec: { template: tpl({}) } } }),
    [
      'spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ],
  );
});

test('updates: the selector is immutable, a StatefulSet spec frozen but for some fields', () => {
  const old = make({ selector: { matchLabels: { a: 'b' } }, serviceName: 's', replicas: 1 });
  const moved = make({
    selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
    serviceName: 's',
    replicas: 1,
  });
  assert.deepEqual(
    validateWorkloadUpdate('deployments.apps', old, moved).map((c) => c.message),
    [
      'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"Exists", Values:[]string(nil)}}}: field is immutable',
    ],
  );
  const scaled = make({ selector: { matchLabels: { a: 'b' } }, serviceName: 's', replicas: 5 });
  assert.deepEqual(validateWorkloadUpdate('statefulsets.apps', old, scaled), []);
  assert.deepEqual(validateWorkloadUpdate('replicationcontrollers', old, moved), []);
  assert.equal(
    goLabelSelector({ matchLabels: {} }).startsWith('v1.LabelSelector{MatchLabels:map[string]string{}'),
    true,
  );
});

test("a Job's template and completions are immutable, a suspended Job's scheduling directives are not", () => {
  const tplWith = (labels: Record<string, string>, spec: JsonObject = {}) =>
    ({ ...tpl(labels, spec), metadata: { labels } }) as JsonObject;
  const job = (suspend: boolean, t: JsonObject, completions = 1) =>
    make({ suspend, completions, parallelism: 1, selector: { matchLabels: { a: 'b' } }, template: t });
  const text = (o: KubeObject, n: KubeObject) =>
    validateWorkloadUpdate('jobs.batch', o, n).map((c) => `${c.field}: ${c.message}`);
  const t = tplWith({ a: 'b' });
  assert.deepEqual(text(job(false, t), job(false, tplWith({ a: 'b' }, { nodeSelector: { z: 'y' } }))), [
    'spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable',
  ]);
  assert.deepEqual(
    text(job(true, t), job(true, tplWith({ a: 'b', extra: 'x' }, { nodeSelector: { z: 'y' } }))),
    [],
  );
  assert.deepEqual(text(job(false, t), job(false, t, 3)), [
    'spec.completions: Invalid value: 3: field is immutable',
  ]);
  assert.deepEqual(text(job(false, t), job(false, t)), []);
});

test('a Deployment strategy: Recreate without rollingUpdate, a rolling one that can move', () => {
  const d = (strategy: JsonObject) => ({
    selector: { matchLabels: { app: 'a' } },
    template: tpl({ app: 'a' }),
    strategy,
  });
  assert.deepEqual(causes('deployments.apps', d({ type: 'Recreate' })), []);
  assert.deepEqual(causes('deployments.apps', d({ type: 'Recreate', rollingUpdate: { maxSurge: '25%' } })), [
    "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
  ]);
  assert.deepEqual(causes('deployments.apps', d({ type: 'BlueGreen' })), [
    'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
  ]);
  assert.deepEqual(causes('deployments.apps', d({ rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } })), [
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
  ]);
});

test('a Job without manualSelector must carry its own generated selector and labels', () => {
  const job = (selector: JsonObject, labels: Record<string, string>): KubeObject => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', uid: 'u1' },
    spec: { selector, template: tpl(labels, { restartPolicy: 'Never' }) },
  });
  const own = {
    'controller-uid': 'u1',
    'job-name': 'j',
    'batch.kubernetes.io/controller-uid': 'u1',
    'batch.kubernetes.io/job-name': 'j',
  };
  const sel = { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } };
  assert.deepEqual(validateWorkload('jobs.batch', defaultBuiltin('jobs.batch', job(sel, own))), []);
  assert.deepEqual(
    validateWorkload(
      'jobs.batch',
      defaultBuiltin('jobs.batch', job({ matchLabels: { ...own, app: 'x' } }, { app: 'x' })),
    ).map((c) => `${c.field}: ${c.message}`),
    [
      "spec.template.metadata.labels[controller-uid]: Required value: must be 'u1'",
      "spec.template.metadata.labels[job-name]: Required value: must be 'j'",
      "spec.template.metadata.labels[batch.kubernetes.io/controller-uid]: Required value: must be 'u1'",
      "spec.template.metadata.labels[batch.kubernetes.io/job-name]: Required value: must be 'j'",
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x", "batch.kubernetes.io/controller-uid":"u1", "batch.kubernetes.io/job-name":"j", "controller-uid":"u1", "job-name":"j"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
    ],
  );
});
