// An invalid PodSet never reaches the operator: the CRD's schema rejects it, and kubectl's message
// names the offending field. (kube-sim enforces the CRD's OpenAPI schema as kube-apiserver does.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'validation' });
  await applyCrd(env);
});
after(async () => {
  await env?.close();
});

function withSpec(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'podset.io/v1', kind: 'PodSet', metadata: { name, namespace: 'default' }, spec };
}

const template = { spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] } };

const cases: { title: string; object: Record<string, unknown>; field: RegExp }[] = [
  { title: 'replicas -1', object: withSpec('neg', { replicas: -1, template }), field: /spec\.replicas/ },
  { title: 'replicas "x"', object: withSpec('str', { replicas: 'x', template }), field: /spec\.replicas/ },
  {
    title: 'replicas 10001',
    object: withSpec('big', { replicas: 10001, template }),
    field: /spec\.replicas/,
  },
  {
    title: 'missing containers',
    object: withSpec('nocontainers', { replicas: 1, template: { spec: {} } }),
    field: /spec\.template\.spec\.containers/,
  },
  {
    title: 'a container without an image',
    object: withSpec('noimage', { replicas: 1, template: { spec: { containers: [{ name: 'app' }] } } }),
    field: /spec\.template\.spec\.containers\[0\]\.image/,
  },
  {
    // Like a ReplicaSet's: a pod that may finish would be replaced for ever.
    title: 'restartPolicy Never',
    object: withSpec('never', {
      replicas: 1,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox' }] } },
    }),
    field: /spec\.template\.spec\.restartPolicy: Unsupported value: "Never": supported values: "Always"/,
  },
];

for (const c of cases) {
  test(`kubectl apply of a PodSet with ${c.title} is rejected, naming the field`, async () => {
    const file = env.writeManifest(
      `${c.object.metadata ? (c.object.metadata as { name: string }).name : 'x'}.yaml`,
      [c.object],
    );
    const r = await env.kubectl(['apply', '-f', file], { allowFail: true });
    assert.notEqual(r.code, 0, `expected kubectl to fail, it printed: ${r.stdout}`);
    assert.match(r.stderr, c.field, `expected the message to name the field; kubectl said: ${r.stderr}`);
    const name = (c.object.metadata as { name: string }).name;
    assert.equal(env.podSet(name), undefined, `expected no PodSet ${name} to be stored`);
  });
}

test('kubectl patch of an existing PodSet to replicas -1 is rejected and the PodSet is unchanged', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('ok.yaml', [podSetManifest('ok', 2)])]);
  const before = env.podSet('ok');
  const r = await env.kubectl(['patch', 'ps', 'ok', '--type=merge', '-p', '{"spec":{"replicas":-1}}'], {
    allowFail: true,
  });
  assert.notEqual(r.code, 0, `expected kubectl patch to fail, it printed: ${r.stdout}`);
  assert.match(r.stderr, /spec\.replicas/, `kubectl said: ${r.stderr}`);
  const afterPatch = env.podSet('ok');
  assert.equal(afterPatch?.metadata.resourceVersion, before?.metadata.resourceVersion);
});

test('defaults: a PodSet with an empty spec gets replicas 1 and the busybox template', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('empty.yaml', [withSpec('empty', {})])]);
  const r = await env.kubectl(['get', 'ps', 'empty', '-o', 'json']);
  const got = JSON.parse(r.stdout) as {
    spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  };
  assert.equal(got.spec.replicas, 1);
  assert.equal(got.spec.template.spec.containers[0]?.image, 'busybox:1.36');
});
