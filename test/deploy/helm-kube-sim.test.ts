// The chart on kube-sim (without controllers): `helm template`'s output applied by kubectl applies again
// unchanged; and three releases installed with helm, two of them cluster-wide: no clash between them, the API
// server's addresses looked up for the egress policy, the secret-init hook gone once it ran; helm upgrade
// keeps the Redis password and follows the API server; helm uninstall keeps the Namespace, its Secrets and
// the CRD. helm comes from scripts/install-helm.sh; without it these checks skip and say so.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startKubeSim, type KubeObject } from '@podset/kube-sim';
import { kubectl as runKubectl } from '@podset/testkit';
import { CHART_DIR, kustomizeObjects } from '../../scripts/gen-chart.ts';
import {
  EXTERNAL,
  NAMESPACED,
  NS,
  asReleased,
  helm,
  helmHomeEnv,
  key,
  needsHelm,
  objects,
  type Obj,
} from './helm-support.ts';
import { secondApplyChanges, type RunKubectl } from './second-apply.ts';

const kustomized = kustomizeObjects() as unknown as Obj[];

for (const [what, values, namespaces] of [
  ['the default values', [], [NS]],
  ['namespaced=true', NAMESPACED, [NS, 'team-a', 'team-b']],
  ['externalRedis.enabled', EXTERNAL, [NS]],
] as const) {
  test(
    `helm template with ${what}, applied by kubectl (kube-sim without controllers), applies again unchanged: every object "unchanged", no resourceVersion moves`,
    needsHelm,
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-helm-apply-'));
      const sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig'), controllers: false });
      const kubectl: RunKubectl = (args) =>
        runKubectl(args, {
          kubeconfig: sim.kubeconfigPath,
          cacheDir: path.join(dir, 'cache'),
          timeoutMs: 120_000,
          allowFail: true,
        });
      try {
        const r = await helm([
          'template',
          'podset-operator',
          CHART_DIR,
          '--include-crds',
          '-n',
          NS,
          ...values,
        ]);
        assert.equal(r.code, 0, r.stderr);
        const file = path.join(dir, 'release.yaml');
        writeFileSync(file, r.stdout);
        // The release's namespace and the watched ones are not the release's: they exist beforehand.
        for (const ns of namespaces) {
          const made = await kubectl(['create', 'namespace', ns]);
          assert.equal(made.code, 0, made.stderr);
        }
        const { changes, objects: applied } = await secondApplyChanges(kubectl, ['-f', file]);
        assert.equal(applied, objects(r.stdout).length, 'every object of the release was applied');
        assert.deepEqual(changes, []);
      } finally {
        await sim.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

test(
  'helm install of three releases (kube-sim), two of them cluster-wide: no clash; helm upgrade keeps the Redis password; helm uninstall keeps the Namespace, its Secrets and the CRD',
  needsHelm,
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-helm-'));
    const sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig'), controllers: false });
    // helm's own cache and config in the temp dir, not the user's.
    const env = helmHomeEnv(dir);
    const kc = ['--kubeconfig', sim.kubeconfigPath];
    // kube-sim runs no Jobs here, and helm waits for a hook Job: the secret-init Job is marked complete as
    // its controller would (its Secret is made by hand below). Whether its Role existed, by namespace.
    const secretInitRoles = new Set<string>();
    const stopRecording = sim.cluster.subscribe((ev) => {
      if (
        ev.resource.startsWith('roles.') &&
        ev.type === 'ADDED' &&
        ev.object.metadata.name === 'podset-redis-secret-init'
      )
        secretInitRoles.add(ev.object.metadata.namespace ?? '');
    });
    const completer = setInterval(() => {
      for (const job of sim.cluster.list('jobs.batch')) {
        const status = (job as { status?: { conditions?: unknown[] } }).status;
        if (job.metadata.name !== 'podset-redis-secret-init' || (status?.conditions ?? []).length > 0)
          continue;
        const now = new Date().toISOString();
        sim.cluster.updateStatus('jobs.batch', {
          ...job,
          status: {
            succeeded: 1,
            startTime: now,
            completionTime: now,
            conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: now }],
          },
        } as KubeObject);
      }
    }, 50);
    try {
      // The API server's Endpoints (kube-sim's own point at 127.0.0.1), given the addresses of a real
      // cluster's: the chart's default apiServerCIDRs (empty) is filled from them, every ready address of
      // every subset, IPv6 as /128.
      sim.cluster.update('endpoints', {
        ...(sim.cluster.get('endpoints', 'default', 'kubernetes') as KubeObject),
        subsets: [
          {
            addresses: [{ ip: '172.18.0.2' }, { ip: '172.18.0.3' }],
            notReadyAddresses: [{ ip: '172.18.0.9' }],
            ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
          },
          { addresses: [{ ip: 'fd00::2' }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
        ],
      } as KubeObject);
      const apiServerPeers = (ns: string) =>
        (
          sim.cluster.get('networkpolicies.networking.k8s.io', ns, 'podset-api-server-egress') as
            { spec?: { egress?: { to?: { ipBlock?: { cidr: string } }[] }[] } } | undefined
        )?.spec?.egress?.[0]?.to?.map((peer) => peer.ipBlock?.cidr);
      const looked = ['172.18.0.2/32', '172.18.0.3/32', 'fd00::2/128'];
      const egressMode = (ns: string) => {
        const policy = sim.cluster.get(
          'networkpolicies.networking.k8s.io',
          ns,
          'podset-api-server-egress',
        ) as { metadata: { annotations?: Record<string, string> } } | undefined;
        const config = sim.cluster.get('configmaps', ns, 'podset-operator') as
          { data?: Record<string, string> } | undefined;
        const mode = policy?.metadata.annotations?.['podset.io/api-server-egress'];
        return mode === config?.data?.API_SERVER_EGRESS
          ? mode
          : `policy ${mode}, ConfigMap ${config?.data?.API_SERVER_EGRESS}`;
      };
      // Release one: cluster-wide RBAC, watching shop. Release two: namespaced, watching web.
      for (const ns of ['shop', 'web'])
        sim.cluster.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      const one = await helm(
        [
          'install',
          'podset-operator',
          CHART_DIR,
          '-n',
          NS,
          '--create-namespace',
          '--set',
          'watchNamespaces={shop}',
          ...kc,
        ],
        env,
      );
      assert.equal(one.code, 0, one.stdout + one.stderr);
      assert.match(one.stdout, /STATUS: deployed/);
      assert.deepEqual(apiServerPeers(NS), looked, "apiServerCIDRs looked up in the cluster's Endpoints");
      assert.equal(egressMode(NS), 'confined', 'the policy and the ConfigMap say confined');
      // The notes helm prints after the install say so, with the addresses and where they came from.
      assert.match(
        one.stdout,
        /Egress to the API server is confined to 172\.18\.0\.2\/32, 172\.18\.0\.3\/32, fd00::2\/128/,
      );
      assert.match(one.stdout, /looked up in the cluster/);
      assert.doesNotMatch(one.stdout, /PORT ONLY/);
      // The Role that may create Secrets was there for the Job, and went with it once it succeeded.
      assert.ok(secretInitRoles.has(NS), 'the secret-init Role existed during the install');
      for (const kind of [
        'roles.rbac.authorization.k8s.io',
        'rolebindings.rbac.authorization.k8s.io',
        'jobs.batch',
        'serviceaccounts',
      ])
        assert.equal(
          sim.cluster.get(kind, NS, 'podset-redis-secret-init'),
          undefined,
          `${kind} is gone after install`,
        );
      const two = await helm(
        [
          'install',
          'podset-operator',
          CHART_DIR,
          '-n',
          'team-web',
          '--create-namespace',
          '--skip-crds',
          ...kc,
          '--set',
          'namespaced=true',
          '--set',
          'watchNamespaces={web}',
        ],
        env,
      );
      assert.equal(two.code, 0, two.stdout + two.stderr);
      // Release three: cluster-wide like the first, in its own namespace. Helm refuses to take over an
      // object another release owns, so equal ClusterRole or ClusterRoleBinding names would fail it.
      sim.cluster.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'db' } });
      const three = await helm(
        [
          'install',
          'podset-operator',
          CHART_DIR,
          '-n',
          'team-db',
          '--create-namespace',
          '--skip-crds',
          ...kc,
          '--set',
          'watchNamespaces={db}',
          '--set',
          'apiServerCIDRs={10.96.0.1/32}',
        ],
        env,
      );
      assert.equal(three.code, 0, three.stdout + three.stderr);
      assert.deepEqual(apiServerPeers('team-db'), ['10.96.0.1/32'], 'an explicit apiServerCIDRs wins');
      assert.equal(egressMode('team-db'), 'confined');
      assert.match(three.stdout, /confined to 10\.96\.0\.1\/32/);
      assert.match(three.stdout, /They are your apiServerCIDRs/);
      const bindingThree = sim.cluster.get(
        'clusterrolebindings.rbac.authorization.k8s.io',
        undefined,
        'team-db-podset-worker',
      ) as { subjects?: { namespace?: string }[]; roleRef?: { name: string } } | undefined;
      assert.equal(bindingThree?.roleRef?.name, 'team-db-podset-worker', "release three's own ClusterRole");
      assert.equal(bindingThree?.subjects?.[0]?.namespace, 'team-db', "bound to release three's worker");
      const plural = (kind: string) =>
        ({
          Namespace: 'namespaces',
          CustomResourceDefinition: 'customresourcedefinitions.apiextensions.k8s.io',
          Deployment: 'deployments.apps',
          ClusterRole: 'clusterroles.rbac.authorization.k8s.io',
          ConfigMap: 'configmaps',
        })[kind];
      for (const o of asReleased(kustomized)) {
        const resource = plural(o.kind);
        if (resource === undefined) continue;
        assert.notEqual(
          sim.cluster.get(resource, o.metadata.namespace, o.metadata.name),
          undefined,
          `${key(o)} was not created`,
        );
      }
      assert.notEqual(sim.cluster.get('deployments.apps', 'team-web', 'podset-watcher'), undefined);
      assert.notEqual(sim.cluster.get('roles.rbac.authorization.k8s.io', 'web', 'podset-worker'), undefined);
      // A Secret the administrator made (the dashboard's token) lives in the namespace, outside the release.
      sim.cluster.create('secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'podset-dashboard', namespace: NS },
        stringData: { token: 't' },
      });
      // So do the Redis passwords: the secret-init Job creates them (kube-sim runs no Jobs here: one made as
      // the Job would), and an upgrade neither replaces nor deletes them — Redis and the apps keep agreeing.
      const password = Buffer.from('made-by-the-secret-init-job').toString('base64');
      sim.cluster.create('secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'podset-redis-watcher', namespace: NS },
        data: { password },
      });
      const redisPassword = () =>
        (
          sim.cluster.get('secrets', NS, 'podset-redis-watcher') as
            { data?: { password?: string } } | undefined
        )?.data?.password;
      // The API server moves: the upgrade looks its addresses up again.
      const endpoints = sim.cluster.get('endpoints', 'default', 'kubernetes') as KubeObject;
      sim.cluster.update('endpoints', {
        ...endpoints,
        subsets: [{ addresses: [{ ip: '172.18.0.7' }], ports: [{ port: 6443, protocol: 'TCP' }] }],
      } as KubeObject);
      const up = await helm(
        [
          'upgrade',
          'podset-operator',
          CHART_DIR,
          '-n',
          NS,
          '--reuse-values',
          '--set',
          'worker.replicas=4',
          ...kc,
        ],
        env,
      );
      assert.equal(up.code, 0, up.stdout + up.stderr);
      assert.match(up.stdout, /REVISION: 2/);
      assert.deepEqual(apiServerPeers(NS), ['172.18.0.7/32'], 'the upgrade follows the Endpoints');
      assert.equal(
        sim.cluster.get('roles.rbac.authorization.k8s.io', NS, 'podset-redis-secret-init'),
        undefined,
        'and after upgrade',
      );
      assert.equal(redisPassword(), password, 'helm upgrade keeps the Redis password');

      // helm uninstall deletes through client-go with protobuf DeleteOptions bodies (its release Secret
      // too); the CRD stays, as helm leaves crds/ alone, and so do the Namespace and what else is in it.
      const u = await helm(['uninstall', 'podset-operator', '-n', NS, ...kc], env);
      assert.equal(u.code, 0, u.stdout + u.stderr);
      for (const o of kustomized.filter((x) => x.kind === 'Deployment' || x.kind === 'ConfigMap')) {
        const resource = plural(o.kind) as string;
        assert.equal(
          sim.cluster.get(resource, o.metadata.namespace, o.metadata.name),
          undefined,
          `${key(o)} was not deleted`,
        );
      }
      assert.equal(
        sim.cluster.get('clusterroles.rbac.authorization.k8s.io', undefined, `${NS}-podset-worker`),
        undefined,
      );
      assert.notEqual(
        sim.cluster.get('namespaces', undefined, NS),
        undefined,
        'helm uninstall keeps the Namespace',
      );
      assert.notEqual(sim.cluster.get('secrets', NS, 'podset-dashboard'), undefined, 'and the Secret in it');
      assert.equal(redisPassword(), password, 'and the Redis password (with the Redis volume it protects)');
      assert.notEqual(
        sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, 'podsets.podset.io'),
        undefined,
        'helm uninstall keeps the CRD',
      );
      assert.notEqual(
        sim.cluster.get('deployments.apps', 'team-web', 'podset-watcher'),
        undefined,
        'the other release stays',
      );
      assert.notEqual(
        sim.cluster.get('clusterroles.rbac.authorization.k8s.io', undefined, 'team-db-podset-worker'),
        undefined,
        "the other cluster-wide release's ClusterRole stays",
      );
    } finally {
      clearInterval(completer);
      stopRecording();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
