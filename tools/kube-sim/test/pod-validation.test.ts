// Pods the API server rejects, rejected by kube-sim with the same words, through the real kubectl: a
// user (or an operator creating pods from a template) sees what a cluster would say.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectl as runKubectl } from '@podset/testkit';
import { startKubeSim, type KubeSim } from '../src/index.ts';

let sim: KubeSim;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-sim-pods-'));
  sim = await startKubeSim({ controllerOptions: { podLifecycle: false } });
});
after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
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
