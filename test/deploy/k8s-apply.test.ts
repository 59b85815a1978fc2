// k8s/ applied with kubectl against kube-sim: `kubectl apply -k k8s` succeeds with strict field validation,
// every Deployment rolls out, the external-redis overlay passes a server-side dry run, `kubectl delete -k`
// removes it all; and a second apply of the default and of each overlay changes nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startKubeSim, type KubeSim } from '@podset/kube-sim';
import { kubectl as runKubectl } from '@podset/testkit';
import { render, type K8sObject } from './manifests.ts';
import { secondApplyChanges, type RunKubectl } from './second-apply.ts';
import { REPO } from './support.ts';

/** Only the kustomizations these tests apply, each rendered once for the file. */
const rendered = new Map<string, K8sObject[]>(
  ['k8s', 'k8s/overlays/external-redis', 'k8s/overlays/namespaced'].map((k) => [k, render(k)]),
);
const base = rendered.get('k8s') as K8sObject[];
const NS = 'podset-system';
/** The namespace k8s/overlays/namespaced watches (its Roles are there). */
const WATCHED = 'team-a';

describe('kubectl apply -k against kube-sim', () => {
  let sim: KubeSim;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'podset-deploy-k8s-'));
    // Controllers on: the Deployments get ReplicaSets and simulated pods, so their rollouts finish.
    sim = await startKubeSim({
      kubeconfigPath: path.join(dir, 'kubeconfig'),
      controllerOptions: { podLifecycle: 'fast', startupDelayMs: 20, startupJitterMs: 80, podEvents: false },
    });
  });
  after(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = async (args: string[]) => {
    const r = await runKubectl(args, {
      kubeconfig: path.join(dir, 'kubeconfig'),
      cacheDir: path.join(dir, 'cache'),
      cwd: REPO,
      timeoutMs: 120_000,
      allowFail: true,
    });
    return { code: r.code, out: r.stdout + r.stderr };
  };

  test('the default deployment applies (strict field validation)', async () => {
    const first = await kubectl(['apply', '--validate=strict', '-k', 'k8s']);
    assert.equal(first.code, 0, first.out);
    for (const o of base) {
      const [group] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : [''];
      const kind = `${o.kind.toLowerCase()}${group ? `.${group}` : ''}`;
      assert.match(
        first.out,
        new RegExp(`${kind.replace(/\./g, '\\.')}/${o.metadata.name} (created|configured|unchanged)`),
      );
    }
    const got = await kubectl([
      '-n',
      NS,
      'get',
      'deploy,sts,svc,pdb,hpa,netpol,sa,role,rolebinding',
      '-o',
      'name',
    ]);
    assert.equal(got.code, 0, got.out);
    for (const name of [
      'deployment.apps/podset-watcher',
      'deployment.apps/podset-worker',
      'statefulset.apps/podset-redis',
    ]) {
      assert.ok(got.out.includes(name), `${name} in ${got.out}`);
    }
  });

  test('every Deployment of the default deployment rolls out (`kubectl rollout status`)', async () => {
    const applied = await kubectl(['apply', '-k', 'k8s']);
    assert.equal(applied.code, 0, applied.out);
    const deployments = base.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
    assert.ok(deployments.length > 0);
    for (const name of deployments) {
      const r = await kubectl(['-n', NS, 'rollout', 'status', `deployment/${name}`, '--timeout=60s']);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, new RegExp(`deployment "${name}" successfully rolled out`));
    }
  });

  test('the external-redis overlay applies (server-side dry run)', async () => {
    const res = await kubectl([
      'apply',
      '--validate=strict',
      '--dry-run=server',
      '-k',
      'k8s/overlays/external-redis',
    ]);
    assert.equal(res.code, 0, res.out);
  });

  test('kubectl delete -k k8s removes the default deployment as on a cluster: exit 0, no NotFound', async () => {
    const applied = await kubectl(['apply', '-k', 'k8s']);
    assert.equal(applied.code, 0, applied.out);
    // The namespace goes first and stays Terminating while kubectl deletes what is in it, one by one.
    const deleted = await kubectl(['delete', '-k', 'k8s', '--timeout=90s']);
    assert.equal(deleted.code, 0, deleted.out);
    assert.doesNotMatch(deleted.out, /NotFound|not found/, deleted.out);
    assert.match(deleted.out, new RegExp(`namespace "${NS}" deleted`));
    assert.match(deleted.out, /deployment\.apps "podset-worker" deleted/);
    assert.equal(sim.cluster.get('namespaces', undefined, NS), undefined, 'the namespace is gone');
  });
});

describe('a second kubectl apply changes nothing (kube-sim without controllers: only kubectl writes)', () => {
  const SETS: { dir: string; beforehand: string[][] }[] = [
    { dir: 'k8s', beforehand: [] },
    { dir: 'k8s/overlays/external-redis', beforehand: [] },
    // The administrator's part first: the Namespace and the CRD.
    {
      dir: 'k8s/overlays/namespaced',
      beforehand: [
        ['create', 'namespace', NS],
        ['create', 'namespace', WATCHED],
        ['apply', '-k', 'crds'],
      ],
    },
  ];
  for (const { dir, beforehand } of SETS) {
    test(`${dir}: applies, and applies again unchanged (every object "unchanged", no resourceVersion moves)`, async () => {
      const tmp = mkdtempSync(path.join(os.tmpdir(), 'podset-second-apply-'));
      const sim = await startKubeSim({ kubeconfigPath: path.join(tmp, 'kubeconfig'), controllers: false });
      const kubectl: RunKubectl = (args) =>
        runKubectl(args, {
          kubeconfig: sim.kubeconfigPath,
          cacheDir: path.join(tmp, 'cache'),
          cwd: REPO,
          timeoutMs: 120_000,
          allowFail: true,
        });
      try {
        for (const args of beforehand) {
          const r = await kubectl(args);
          assert.equal(r.code, 0, r.stderr);
        }
        const { changes, objects } = await secondApplyChanges(kubectl, ['-k', dir]);
        assert.equal(objects, rendered.get(dir)?.length, 'every object of the set was applied');
        assert.deepEqual(changes, []);
      } finally {
        await sim.close();
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
