// Every namespace has a `default` ServiceAccount, as on a cluster (kube-controller-manager's
// ServiceAccount controller): seen through the real kubectl for the built-in namespaces and a new one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectl as runKubectl, waitFor } from '@podset/testkit';
import { startKubeSim, type KubeSim } from '../src/index.ts';

let sim: KubeSim;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kube-sim-sa-'));
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
