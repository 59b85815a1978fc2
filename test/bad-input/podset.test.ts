// Bad PodSets at the API: each is refused with a 4xx whose message names the offending field, nothing
// is stored, no pod is created, and the healthy PodSet beside it still converges. What the API accepts
// (a missing template, unknown fields, the longest name) converges as documented.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { NAME_LABEL, PODS, PODSETS, activePodsOf } from '../e2e/support/check.ts';
import type { OperatorEnv } from '../e2e/support/harness.ts';
import { api, healthyStillConverges, podSetsPath, problemsOf, startCatalog } from './support/catalog.ts';

let env: OperatorEnv;
before(async () => {
  env = await startCatalog({ name: 'bad-podset' });
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
});
after(async () => {
  await env?.close();
});

const containers = [{ name: 'app', image: 'busybox:1.36' }];
const podSet = (name: string, spec: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'podset.io/v1',
  kind: 'PodSet',
  metadata: { name, namespace: 'default' },
  spec,
  ...extra,
});

const rejected: { title: string; name: string; spec: unknown; code?: number; message: RegExp }[] = [
  {
    title: 'negative replicas',
    name: 'neg',
    spec: { replicas: -1, template: { spec: { containers } } },
    message: /spec\.replicas.*greater than or equal to 0/,
  },
  {
    title: 'huge replicas (10001)',
    name: 'huge',
    spec: { replicas: 10001 },
    message: /spec\.replicas.*less than or equal to 10000/,
  },
  {
    title: 'replicas beyond int32',
    name: 'int32',
    spec: { replicas: 2147483648 },
    message: /spec\.replicas/,
  },
  {
    title: 'fractional replicas',
    name: 'frac',
    spec: { replicas: 2.5 },
    message: /spec\.replicas.*must be of type integer/,
  },
  {
    title: 'string replicas',
    name: 'str',
    spec: { replicas: '3' },
    message: /spec\.replicas.*must be of type integer/,
  },
  {
    title: 'a template that is a string',
    name: 'tstr',
    spec: { replicas: 1, template: 'nginx' },
    message: /spec\.template.*must be of type object/,
  },
  {
    title: 'a template without spec',
    name: 'tnospec',
    spec: { replicas: 1, template: { metadata: {} } },
    message: /spec\.template\.spec.*Required/i,
  },
  {
    title: 'no containers',
    name: 'nocont',
    spec: { replicas: 1, template: { spec: { containers: [] } } },
    message: /spec\.template\.spec\.containers/,
  },
  {
    title: 'containers as an object',
    name: 'contobj',
    spec: { replicas: 1, template: { spec: { containers: { name: 'app' } } } },
    message: /spec\.template\.spec\.containers.*must be of type array/,
  },
  {
    title: 'a container without an image',
    name: 'noimage',
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'app' }] } } },
    message: /containers\[0\]\.image/,
  },
  {
    title: 'an invalid container name (App_1)',
    name: 'badcname',
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'App_1', image: 'x' }] } } },
    message: /containers\[0\]\.name/,
  },
  {
    title: 'a container name of 64 characters',
    name: 'longcname',
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'c'.repeat(64), image: 'x' }] } } },
    message: /containers\[0\]\.name/,
  },
  {
    title: 'duplicate container names',
    name: 'dupc',
    spec: { replicas: 1, template: { spec: { containers: [...containers, ...containers] } } },
    message: /containers\[1\].*Duplicate/,
  },
  {
    title: 'an invalid template label value',
    name: 'badlabel',
    spec: { replicas: 1, template: { metadata: { labels: { tier: 'not ok!' } }, spec: { containers } } },
    message: /spec\.template\.metadata\.labels\.tier/,
  },
  {
    title: 'a template label podset.io/name (the operator sets it to find its pods)',
    name: 'resname',
    spec: {
      replicas: 1,
      template: { metadata: { labels: { 'podset.io/name': 'other' } }, spec: { containers } },
    },
    message:
      /spec\.template\.metadata\.labels: Invalid value: "object": podset\.io\/name is set by the operator to the PodSet's name on every pod/,
  },
  {
    title: 'a template label podset.io/template-hash (the operator sets it to tell old pods from new)',
    name: 'reshash',
    spec: {
      replicas: 1,
      template: { metadata: { labels: { 'podset.io/template-hash': 'abc' } }, spec: { containers } },
    },
    message:
      /spec\.template\.metadata\.labels: Invalid value: "object": podset\.io\/template-hash is set by the operator to the template's hash/,
  },
  {
    title: 'progressDeadlineSeconds not above minReadySeconds',
    name: 'deadline',
    spec: { replicas: 1, minReadySeconds: 30, progressDeadlineSeconds: 30 },
    message: /spec: Invalid value: "object": progressDeadlineSeconds must be greater than minReadySeconds/,
  },
  {
    title: 'progressDeadlineSeconds 0',
    name: 'deadline0',
    spec: { replicas: 1, progressDeadlineSeconds: 0 },
    message: /spec\.progressDeadlineSeconds.*greater than or equal to 1/,
  },
  {
    title: 'a name too long for its pods (64 characters)',
    name: 'p'.repeat(64),
    spec: { replicas: 1 },
    message: /metadata\.name/,
  },
];

for (const c of rejected) {
  test(`PodSet with ${c.title}: refused naming the field, nothing stored, the healthy one unharmed`, async () => {
    const pods = env.sim.cluster.list(PODS).length;
    const r = await api(env, 'POST', podSetsPath(), podSet(c.name, c.spec));
    assert.equal(r.status, c.code ?? 422, r.text);
    assert.match(r.body.message ?? '', c.message, r.text);
    assert.equal(env.podSet(c.name), undefined, 'nothing stored');
    await healthyStillConverges(env);
    assert.equal(
      env.sim.cluster.list(PODS).filter((p) => p.metadata.labels?.[NAME_LABEL] === c.name).length,
      0,
      'no pod created for it',
    );
    assert.ok(env.sim.cluster.list(PODS).length >= pods - 3);
  });
}

test('a body that is not JSON: 400 with the decoder message', async () => {
  const r = await api(env, 'POST', podSetsPath(), undefined, {
    raw: '{"apiVersion":"podset.io/v1","kind":"PodSet",',
  });
  assert.equal(r.status, 400, r.text);
  assert.match(r.body.message ?? '', /error decoding request body/, r.text);
  await healthyStillConverges(env);
});

test('a body of another kind at the PodSet path: 400 naming both kinds', async () => {
  const r = await api(env, 'POST', podSetsPath(), { ...podSet('banana', {}), kind: 'Banana' });
  assert.equal(r.status, 400, r.text);
  assert.match(r.body.message ?? '', /Banana.*PodSet/, r.text);
  await healthyStillConverges(env);
});

test('a missing template is defaulted (busybox) and converges', async () => {
  const r = await api(env, 'POST', podSetsPath(), podSet('notemplate', { replicas: 2 }));
  assert.equal(r.status, 201, r.text);
  await env.waitFor('notemplate to converge', () => problemsOf(env, 'notemplate'), { timeoutMs: 60_000 });
  const pods = activePodsOf(env.podSet('notemplate') as KubeObject, env.sim.cluster.list(PODS));
  for (const p of pods) {
    assert.equal(
      (p as unknown as { spec: { containers: { image: string }[] } }).spec.containers[0]?.image,
      'busybox:1.36',
    );
  }
});

test('unknown fields are pruned (spec.foo, a top-level field) and the PodSet converges', async () => {
  const r = await api(
    env,
    'POST',
    podSetsPath(),
    podSet('unknown', { replicas: 1, foo: 'bar', template: { spec: { containers } } }, { extra: 1 }),
  );
  assert.equal(r.status, 201, r.text);
  const stored = env.podSet('unknown') as unknown as { spec: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  assert.equal(stored.spec.foo, undefined, 'spec.foo pruned');
  assert.equal(stored.extra, undefined, 'top-level extra pruned');
  await env.waitFor('unknown to converge', () => problemsOf(env, 'unknown'), { timeoutMs: 60_000 });
});

test('the longest name (63 characters) converges; its pods have valid names and the full label', async () => {
  const name = `l${'o'.repeat(61)}g`;
  const r = await api(
    env,
    'POST',
    podSetsPath(),
    podSet(name, { replicas: 2, template: { spec: { containers } } }),
  );
  assert.equal(r.status, 201, r.text);
  await env.waitFor(`${name} to converge`, () => problemsOf(env, name), { timeoutMs: 60_000 });
  for (const p of activePodsOf(env.podSet(name) as KubeObject, env.sim.cluster.list(PODS))) {
    const pn = p.metadata.name ?? '';
    assert.ok(pn.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(pn), `pod name ${pn}`);
    assert.equal(p.metadata.labels?.[NAME_LABEL], name);
  }
});

test('edited to invalid while pods exist: refused, its pods and status untouched', async () => {
  const r0 = await api(
    env,
    'POST',
    podSetsPath(),
    podSet('edited', { replicas: 3, template: { spec: { containers } } }),
  );
  assert.equal(r0.status, 201, r0.text);
  await env.waitFor('edited to converge', () => problemsOf(env, 'edited'), { timeoutMs: 60_000 });
  const before = env.podSet('edited') as KubeObject;
  const podsBefore = activePodsOf(before, env.sim.cluster.list(PODS)).map((p) => p.metadata.uid);
  const edits: { body: unknown; field: RegExp }[] = [
    { body: { spec: { replicas: -3 } }, field: /spec\.replicas/ },
    { body: { spec: { replicas: 'many' } }, field: /spec\.replicas/ },
    { body: { spec: { template: { spec: { containers: [] } } } }, field: /containers/ },
    {
      body: { spec: { template: { spec: { containers: [{ name: 'Bad Name', image: 'x' }] } } } },
      field: /containers\[0\]\.name/,
    },
  ];
  for (const e of edits) {
    const r = await fetch(`${env.sim.url}${podSetsPath()}/edited`, {
      method: 'PATCH',
      headers: {
        Authorization: `Bearer ${env.sim.tokens.admin}`,
        'Content-Type': 'application/merge-patch+json',
      },
      body: JSON.stringify(e.body),
    });
    const text = await r.text();
    assert.equal(r.status, 422, text);
    assert.match(text, e.field);
  }
  const after = env.podSet('edited') as KubeObject;
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'the PodSet is unchanged');
  await healthyStillConverges(env);
  assert.deepEqual(problemsOf(env, 'edited'), []);
  assert.deepEqual(
    activePodsOf(after, env.sim.cluster.list(PODS)).map((p) => p.metadata.uid),
    podsBefore,
    'same pods',
  );
});

test('a user writing an invalid status: refused (422), the operator keeps writing the true one', async () => {
  const r = await fetch(`${env.sim.url}${podSetsPath()}/edited/status`, {
    method: 'PATCH',
    headers: {
      Authorization: `Bearer ${env.sim.tokens.admin}`,
      'Content-Type': 'application/merge-patch+json',
    },
    body: JSON.stringify({ status: { replicas: -5 } }),
  });
  assert.equal(r.status, 422, await r.text());
  assert.ok(env.sim.cluster.get(PODSETS, 'default', 'edited'));
  await healthyStillConverges(env);
});

test('kubectl: a template label the operator owns is refused with the reason, on create and on edit', async () => {
  const manifest = podSet('ownlabel', {
    replicas: 1,
    template: { metadata: { labels: { 'podset.io/name': 'web' } }, spec: { containers } },
  });
  const create = await env.kubectl(['apply', '-f', env.writeManifest('ownlabel.yaml', [manifest])], {
    allowFail: true,
  });
  assert.notEqual(create.code, 0);
  assert.match(
    create.stderr,
    /spec\.template\.metadata\.labels: Invalid value: "object": podset\.io\/name is set by the operator to the PodSet's name on every pod \(it finds its pods by it\): a template may not set it/,
  );
  assert.equal(env.podSet('ownlabel'), undefined, 'nothing stored');

  // An existing PodSet edited to carry one: refused, the PodSet unchanged.
  await env.kubectl(['apply', '-f', env.writeManifest('fine.yaml', [podSet('fine', { replicas: 1 })])]);
  const patch = { spec: { template: { metadata: { labels: { 'podset.io/template-hash': 'x' } } } } };
  const edit = await env.kubectl(['patch', 'ps', 'fine', '--type=merge', '-p', JSON.stringify(patch)], {
    allowFail: true,
  });
  assert.notEqual(edit.code, 0);
  assert.match(edit.stderr, /podset\.io\/template-hash is set by the operator to the template's hash/);
  // (its status and finalizer are the operator's to write meanwhile: the spec is what must not change)
  assert.equal(env.podSet('fine')?.metadata.generation, 1, 'the spec is unchanged');
});

// The template is validated against the full PodTemplateSpec of the pinned Kubernetes release, so a
// mistake inside it is refused at apply time, as a Deployment's would be, instead of failing at pod
// creation (or never, for a misspelt optional field). kubectl's default --validate=strict makes the server
// refuse unknown fields; a malformed quantity or an unsupported enum value is refused whatever it says.
const templateMistakes: { title: string; name: string; spec: Record<string, unknown>; message: RegExp }[] = [
  {
    title: 'a misspelt container field (comand)',
    name: 'comand',
    spec: { containers: [{ name: 'app', image: 'busybox:1.36', comand: ['sleep', '1'] }] },
    message: /unknown field "spec\.template\.spec\.containers\[0\]\.comand"/,
  },
  {
    title: 'a misspelt pod field (nodeSelectr)',
    name: 'nodeselectr',
    spec: { containers, nodeSelectr: { disk: 'ssd' } },
    message: /unknown field "spec\.template\.spec\.nodeSelectr"/,
  },
  {
    title: 'a misspelt container field (imagePullPolicyy)',
    name: 'pullpolicyy',
    spec: { containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicyy: 'Always' }] },
    message: /unknown field "spec\.template\.spec\.containers\[0\]\.imagePullPolicyy"/,
  },
  {
    title: 'an unsupported imagePullPolicy (Allways)',
    name: 'allways',
    spec: { containers: [{ name: 'app', image: 'busybox:1.36', imagePullPolicy: 'Allways' }] },
    message: /spec\.template\.spec\.containers\[0\]\.imagePullPolicy: Unsupported value: "Allways"/,
  },
  {
    title: 'a cpu limit that is no quantity ("abc")',
    name: 'cpuabc',
    spec: { containers: [{ name: 'app', image: 'busybox:1.36', resources: { limits: { cpu: 'abc' } } }] },
    message: /spec\.template\.spec\.containers\[0\]\.resources\.limits\.cpu: Invalid value: "abc"/,
  },
];

for (const c of templateMistakes) {
  test(`kubectl apply of a template with ${c.title}: refused naming the field, nothing stored`, async () => {
    const manifest = podSet(c.name, { replicas: 1, template: { spec: c.spec } });
    const r = await env.kubectl(['apply', '-f', env.writeManifest(`${c.name}.yaml`, [manifest])], {
      allowFail: true,
    });
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, c.message);
    assert.equal(env.podSet(c.name), undefined, 'nothing stored');
  });
}

test('kubectl apply of a template using the PodSpec beyond containers (probes, resources, volumes) is accepted', async () => {
  const manifest = podSet('fullspec', {
    replicas: 1,
    template: {
      metadata: { labels: { tier: 'web' } },
      spec: {
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        terminationGracePeriodSeconds: 5,
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '64Mi' } }],
        containers: [
          {
            name: 'app',
            image: 'busybox:1.36',
            imagePullPolicy: 'IfNotPresent',
            command: ['sleep', '3600'],
            ports: [{ containerPort: 8080, name: 'http' }],
            readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 5 },
            resources: { requests: { cpu: '100m', memory: 64 }, limits: { cpu: 1, memory: '128Mi' } },
            volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
          },
        ],
      },
    },
  });
  await env.kubectl(['apply', '-f', env.writeManifest('fullspec.yaml', [manifest])]);
  await env.waitFor('fullspec to converge', () => problemsOf(env, 'fullspec'), { timeoutMs: 60_000 });
});
