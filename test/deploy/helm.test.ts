// The Helm chart is k8s/ in another form: generated from `kubectl kustomize k8s` (scripts/gen-chart.ts),
// and `helm template` with the default values gives back the same objects. helm comes from
// scripts/install-helm.sh (.ci/run installs it); without it the helm checks skip and say so.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startKubeSim } from '@podset/kube-sim';
import { parseAllDocuments } from 'yaml';
import {
  CHART_DIR,
  chartFiles,
  kustomizeObjects,
  packageVersion,
  staleFiles,
} from '../../scripts/gen-chart.ts';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: { name: string; image: string }[] } } };
}

const hasHelm = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' }).status === 0;
// On a developer's machine without helm these checks skip and say so; in CI (which installs helm) a
// missing helm fails them instead, so the chart can never go unchecked there.
const needsHelm = {
  skip: hasHelm || process.env.CI ? false : 'helm is not installed (bash scripts/install-helm.sh)',
};

function helm(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('helm', args, { env, maxBuffer: 64 << 20, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}
const objects = (yaml: string): Obj[] =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
const key = (o: Obj) => `${o.kind} ${o.metadata.namespace ?? '-'}/${o.metadata.name}`;
const byKey = (list: Obj[]) => new Map(list.map((o) => [key(o), o]));

const kustomized = kustomizeObjects() as unknown as Obj[];

test('the chart is what scripts/gen-chart.ts makes of k8s/ (node scripts/gen-chart.ts to refresh)', () => {
  const want = chartFiles(kustomizeObjects(), packageVersion());
  assert.deepEqual(staleFiles(want), []);
  assert.ok(want.has('crds/podsets.podset.io.yaml'), 'the CRD is in crds/, which helm uninstall keeps');
});

test('helm lint --strict passes', needsHelm, async () => {
  const r = await helm(['lint', '--strict', CHART_DIR]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
});

test(
  'helm template with the default values gives the objects kubectl kustomize k8s gives',
  needsHelm,
  async () => {
    const r = await helm(['template', 'podset-operator', CHART_DIR, '--include-crds']);
    assert.equal(r.code, 0, r.stderr);
    const rendered = byKey(objects(r.stdout));
    const want = byKey(kustomized);
    assert.deepEqual([...rendered.keys()].sort(), [...want.keys()].sort());
    for (const [k, o] of want) assert.deepEqual(rendered.get(k), o, k);
  },
);

test('values set the namespace of every object and the operator image', needsHelm, async () => {
  const r = await helm([
    'template',
    'podset-operator',
    CHART_DIR,
    '--set',
    'namespace=ops',
    '--set',
    'image.repository=registry.example/podset-operator',
    '--set',
    'image.tag=1.2.3',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const rendered = objects(r.stdout);
  const namespaced = rendered.filter((o) => o.metadata.namespace !== undefined);
  assert.ok(namespaced.length > 10);
  for (const o of namespaced) assert.equal(o.metadata.namespace, 'ops', key(o));
  assert.ok(rendered.some((o) => o.kind === 'Namespace' && o.metadata.name === 'ops'));
  assert.doesNotMatch(r.stdout, /podset-system/);
  const images = rendered.flatMap((o) => o.spec?.template?.spec?.containers ?? []).map((c) => c.image);
  assert.deepEqual(
    images.filter((i) => i.includes('podset-operator')),
    Array(4).fill('registry.example/podset-operator:1.2.3'),
    'watcher, worker, dashboard and the Redis secret-init Job',
  );
  assert.equal(path.basename(CHART_DIR), 'podset-operator');
});

test(
  'helm install, as docs/install.md says, creates those objects in a cluster (kube-sim); helm uninstall removes them',
  needsHelm,
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-helm-'));
    const sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig'), controllers: false });
    // helm's own cache and config in the temp dir, not the user's.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      HELM_CACHE_HOME: path.join(dir, 'cache'),
      HELM_CONFIG_HOME: path.join(dir, 'config'),
      HELM_DATA_HOME: path.join(dir, 'data'),
    };
    try {
      const r = await helm(
        ['install', 'podset-operator', CHART_DIR, '-n', 'default', '--kubeconfig', sim.kubeconfigPath],
        env,
      );
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /STATUS: deployed/);
      const plural = (kind: string) =>
        ({
          Namespace: 'namespaces',
          CustomResourceDefinition: 'customresourcedefinitions.apiextensions.k8s.io',
          Deployment: 'deployments.apps',
          ClusterRole: 'clusterroles.rbac.authorization.k8s.io',
          ConfigMap: 'configmaps',
        })[kind];
      for (const o of kustomized) {
        const resource = plural(o.kind);
        if (resource === undefined) continue;
        const got = sim.cluster.get(resource, o.metadata.namespace, o.metadata.name);
        assert.notEqual(got, undefined, `${key(o)} was not created`);
      }
      // helm uninstall deletes through client-go with protobuf DeleteOptions bodies (its release Secret
      // too); the CRD stays, as helm leaves crds/ alone.
      const u = await helm(
        ['uninstall', 'podset-operator', '-n', 'default', '--kubeconfig', sim.kubeconfigPath],
        env,
      );
      assert.equal(u.code, 0, u.stdout + u.stderr);
      for (const o of kustomized.filter((x) => x.kind === 'Deployment' || x.kind === 'ConfigMap')) {
        const resource = plural(o.kind) as string;
        assert.equal(
          sim.cluster.get(resource, o.metadata.namespace, o.metadata.name),
          undefined,
          `${key(o)} was not deleted`,
        );
      }
      assert.notEqual(
        sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, 'podsets.podset.io'),
        undefined,
        'helm uninstall keeps the CRD',
      );
    } finally {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
