// What the real kubectl sees of kube-sim where a cluster has behaviour of its own: a `default`
// ServiceAccount in every namespace (kube-controller-manager's ServiceAccount controller), invalid pods
// refused with the API server's causes, and a kind whose CRD is not installed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectl as runKubectl, waitFor } from '@podset/testkit';
import { startKubeSim, type KubeSim } from '../src/index.ts';

let sim: KubeSim;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-sim-kubectl-'));
  sim = await startKubeSim({ controllerOptions: { podLifecycle: false } });
});
after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const kubectl = (args: string[]) =>
  runKubectl(args, { kubeconfig: sim.kubeconfigPath, cacheDir: join(dir, 'cache'), allowFail: true });

test('kubectl sees a default ServiceAccount in every namespace, a new one included', async () => {
  await kubectl(['create', 'namespace', 'team-a']);
  await waitFor(
    'a default ServiceAccount in default, kube-system and team-a',
    async () => {
      const r = await kubectl([
        'get',
        'serviceaccounts',
        '-A',
        '-o',
        'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}',
      ]);
      const seen = r.stdout.trim().split(/\s+/);
      return ['default/default', 'kube-system/default', 'team-a/default'].every((s) => seen.includes(s));
    },
    { timeoutMs: 10_000 },
  );
  const sa = await kubectl(['get', 'serviceaccount', 'default', '-n', 'team-a', '-o', 'name']);
  assert.equal(sa.stdout.trim(), 'serviceaccount/default');
});

async function apply(name: string, spec: unknown) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec }));
  return await runKubectl(['apply', '-f', file], {
    kubeconfig: sim.kubeconfigPath,
    cacheDir: join(dir, 'cache'),
    allowFail: true,
  });
}

test("kubectl apply of invalid pods: the API server's causes, nothing stored", async () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'no-containers',
      { containers: [] },
      /The Pod "no-containers" is invalid: spec\.containers: Required value/,
    ],
    [
      'bad-restart',
      { restartPolicy: 'Sometimes', containers: [{ name: 'a', image: 'x' }] },
      /spec\.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"/,
    ],
    [
      'bad-port',
      { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 70000 }] }] },
      /spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive/,
    ],
    [
      'string-port',
      { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: '80' }] }] },
      /cannot unmarshal string into Go struct field ContainerPort\.spec\.containers\.ports\.containerPort of type int32/,
    ],
    ['Bad_Name', { containers: [{ name: 'a', image: 'x' }] }, /metadata\.name: Invalid value: "Bad_Name"/],
  ];
  for (const [name, spec, message] of cases) {
    const r = await apply(name, spec);
    assert.notEqual(r.code, 0, `${name} is refused`);
    assert.match(r.stderr, message, name);
    assert.equal(sim.cluster.get('pods', 'default', name), undefined, `${name} is not stored`);
  }
  const good = await apply('good', {
    containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80 }] }],
  });
  assert.equal(good.code, 0, good.stderr);
  assert.ok(sim.cluster.get('pods', 'default', 'good'));
});

test('kubectl apply of a kind whose CRD is not installed: the error a cluster gives', async () => {
  const file = join(dir, 'widget.json');
  writeFileSync(
    file,
    JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} }),
  );
  const r = await kubectl(['apply', '-f', file]);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /no matches for kind "Widget" in version "example\.com\/v1"\s+ensure CRDs are installed first/,
  );
});
