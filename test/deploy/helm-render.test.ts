// The chart's values, checked in what `helm template` renders: the namespace, image, replicas, resources,
// watched namespaces and external Redis; stateSource; the API server egress (confined to apiServerCIDRs, or
// limited by port and saying so); Redis's maxmemory from its memory limit; namespaced=true. Values the chart
// cannot take are refused. helm comes from scripts/install-helm.sh; without it these checks skip and say so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHART_DIR } from '../../scripts/gen-chart.ts';
import { EXTERNAL, NAMESPACED, helm, key, needsHelm, objects, type Obj } from './helm-support.ts';
import type { K8sObject } from './manifests.ts';
import { allowed, type Endpoint, type NetworkPolicy } from './network-policy.ts';

/** `helm template` of the chart as a release in the namespace `ops`, with these flags. */
function renderInOps(args: string[]): ReturnType<typeof helm> {
  return helm(['template', 'podset-operator', CHART_DIR, '-n', 'ops', ...args]);
}

interface Workload extends Obj {
  spec: {
    replicas?: number;
    template: {
      spec: {
        containers: {
          name: string;
          image: string;
          resources?: unknown;
          env?: {
            name: string;
            value?: string;
            valueFrom?: { secretKeyRef?: { name: string; key: string } };
          }[];
        }[];
      };
    };
  };
}

test(
  'values set the namespace, image, replicas, resources, watched namespaces and external Redis',
  needsHelm,
  async () => {
    const resources = { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '2', memory: '1Gi' } };
    const r = await renderInOps([
      '--set',
      'image.repository=registry.example/podset-operator',
      '--set',
      'image.tag=1.2.3',
      '--set',
      'worker.replicas=7',
      '--set-json',
      `worker.resources=${JSON.stringify(resources)}`,
      '--set',
      'watchNamespaces={shop,web}',
      ...EXTERNAL,
      '--set',
      'externalRedis.urlKey=connection',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const rendered = objects(r.stdout);
    const namespaced = rendered.filter((o) => o.metadata.namespace !== undefined);
    assert.ok(namespaced.length > 10);
    for (const o of namespaced) assert.equal(o.metadata.namespace, 'ops', key(o));
    assert.ok(!rendered.some((o) => o.kind === 'Namespace'), 'no Namespace object');
    assert.doesNotMatch(r.stdout, /podset-system/);
    const workloads = rendered.filter((o): o is Workload => o.kind === 'Deployment');
    const images = workloads.flatMap((o) => o.spec.template.spec.containers).map((c) => c.image);
    assert.deepEqual(
      images,
      Array(4).fill('registry.example/podset-operator:1.2.3'),
      'watcher, worker, dashboard and the script loader',
    );
    const worker = workloads.find((w) => w.metadata.name === 'podset-worker') as Workload;
    assert.equal(worker.spec.replicas, 7);
    assert.deepEqual(worker.spec.template.spec.containers[0]?.resources, resources);
    for (const w of workloads) {
      const env = w.spec.template.spec.containers[0]?.env ?? [];
      const watch = env.find((e) => e.name === 'WATCH_NAMESPACES');
      // The worker too: it refuses a job whose key names a namespace outside the list. The script loader
      // reads no PodSet.
      if (w.metadata.name !== 'podset-redis-scripts')
        assert.equal(watch?.value, 'shop,web', `${w.metadata.name} WATCH_NAMESPACES`);
      const url = env.find((e) => e.name === 'REDIS_URL')?.valueFrom?.secretKeyRef;
      assert.deepEqual(
        url,
        { name: 'redis-conn', key: 'connection' },
        `${w.metadata.name} REDIS_URL from the Secret`,
      );
    }
    assert.ok(!rendered.some((o) => o.kind === 'StatefulSet'), 'no in-cluster Redis');
    assert.ok(
      rendered.some((o) => o.kind === 'ClusterRole' && o.metadata.name === 'ops-podset-worker'),
      'cluster-scoped names carry the namespace',
    );
  },
);

test(
  'stateSource=api sets STATE_SOURCE on the watcher and the workers (not the dashboard); by default none is set; an unknown one is refused',
  needsHelm,
  async () => {
    const stateSources = async (args: string[]) => {
      const r = await renderInOps(args);
      assert.equal(r.code, 0, r.stderr);
      const deployments = objects(r.stdout).filter((o): o is Workload => o.kind === 'Deployment');
      return Object.fromEntries(
        deployments.map((w) => [
          w.metadata.name,
          (w.spec.template.spec.containers[0]?.env ?? []).find((e) => e.name === 'STATE_SOURCE')?.value,
        ]),
      );
    };
    assert.deepEqual(await stateSources([]), {
      'podset-dashboard': undefined,
      'podset-watcher': undefined,
      'podset-worker': undefined,
    });
    assert.deepEqual(await stateSources(['--set', 'stateSource=api']), {
      'podset-dashboard': undefined,
      'podset-watcher': 'api',
      'podset-worker': 'api',
    });
    // values.schema.json refuses it before anything renders, naming the value and the choices.
    const wrong = await renderInOps(['--set', 'stateSource=API']);
    assert.notEqual(wrong.code, 0);
    assert.match(
      wrong.stderr,
      /- stateSource: stateSource must be one of the following: "", "projection", "api"/,
    );
  },
);

/** The API server egress policy and the ConfigMap's API_SERVER_EGRESS of a render. */
function egressOf(stdout: string) {
  const rendered = objects(stdout) as unknown as K8sObject[];
  const policies = rendered.filter((o): o is NetworkPolicy => o.kind === 'NetworkPolicy');
  const policy = policies.find((p) => p.metadata.name === 'podset-api-server-egress') as
    (NetworkPolicy & { metadata: { annotations?: Record<string, string> } }) | undefined;
  const config = rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'podset-operator') as
    (K8sObject & { data?: Record<string, string> }) | undefined;
  return { policies, annotations: policy?.metadata.annotations, mode: config?.data?.API_SERVER_EGRESS };
}

test(
  'apiServerCIDRs are the only addresses the apps reach on 443/6443 (confined); empty with no cluster to look them up in, the rule is limited by port only and says so',
  needsHelm,
  async () => {
    const worker: Endpoint = {
      kind: 'pod',
      namespace: 'ops',
      labels: { 'app.kubernetes.io/name': 'podset-operator', 'app.kubernetes.io/component': 'worker' },
    };
    const at = (ip: string): Endpoint => ({ kind: 'external', ip });
    const r = await renderInOps(['--set', 'apiServerCIDRs={10.0.0.11/32,10.0.0.12/32}']);
    assert.equal(r.code, 0, r.stderr);
    const confined = egressOf(r.stdout);
    assert.ok(allowed(confined.policies, worker, at('10.0.0.11'), 6443));
    assert.ok(allowed(confined.policies, worker, at('10.0.0.12'), 443));
    assert.ok(!allowed(confined.policies, worker, at('10.0.0.13'), 443), 'no other address');
    assert.deepEqual(confined.annotations, { 'podset.io/api-server-egress': 'confined' });
    assert.equal(confined.mode, 'confined', 'the apps are told');
    // The default (empty) and an explicit empty list: helm template has no cluster, so the lookup finds
    // nothing. The render works, the API server rule allows 443 and 6443 to any address and no other port.
    for (const empty of [[], ['--set', 'apiServerCIDRs=null'], ['--set-json', 'apiServerCIDRs=[]']]) {
      const open = await renderInOps(empty);
      assert.equal(open.code, 0, `${empty.join(' ')}: ${open.stderr}`);
      const portOnly = egressOf(open.stdout);
      assert.ok(allowed(portOnly.policies, worker, at('172.18.0.2'), 6443), 'the API server, wherever it is');
      assert.ok(allowed(portOnly.policies, worker, at('10.0.0.13'), 443));
      for (const port of [80, 8443, 6444])
        assert.ok(!allowed(portOnly.policies, worker, at('10.0.0.13'), port), `never port ${port}`);
      assert.ok(!allowed(portOnly.policies, worker, at('10.0.0.13'), 443, 'UDP'), 'never UDP');
      assert.equal(portOnly.annotations?.['podset.io/api-server-egress'], 'port-only', empty.join(' '));
      assert.match(
        portOnly.annotations?.['podset.io/api-server-egress-note'] ?? '',
        /limited by port only .*set apiServerCIDRs/,
      );
      assert.equal(portOnly.mode, 'port-only', 'the apps are told');
    }
  },
);

test(
  "Redis's --maxmemory is three quarters of redis.resources.limits.memory; a limit it cannot read is refused",
  needsHelm,
  async () => {
    const maxmemory = async (limit: string | undefined) => {
      const r = await renderInOps(
        limit === undefined ? [] : ['--set', `redis.resources.limits.memory=${limit}`],
      );
      assert.equal(r.code, 0, r.stderr);
      const redis = objects(r.stdout).find((o): o is Workload => o.kind === 'StatefulSet');
      const c = redis?.spec.template.spec.containers[0] as
        { command?: string[]; args?: string[] } | undefined;
      const argv = [...(c?.command ?? []), ...(c?.args ?? [])];
      return argv[argv.indexOf('--maxmemory') + 1];
    };
    assert.equal(await maxmemory(undefined), '768mb', 'the default limit (1Gi) gives what k8s/ sets');
    assert.equal(await maxmemory('512Mi'), '384mb');
    assert.equal(await maxmemory('4Gi'), '3072mb');
    assert.equal(await maxmemory('2G'), '1500000000');
    for (const [limit, problem] of [
      ['1.5Gi', /"1\.5Gi" is not a whole memory quantity/],
      ['lots', /- redis\.resources\.limits\.memory: Does not match pattern/], // values.schema.json
      ['16Mi', /"16Mi" leaves Redis a maxmemory under 32mb/],
    ] as const) {
      const r = await renderInOps(['--set', `redis.resources.limits.memory=${limit}`]);
      assert.notEqual(r.code, 0, limit);
      assert.match(r.stderr, problem);
    }
  },
);

test(
  'namespaced=true: Roles in each watched namespace, nothing cluster-scoped; it needs watchNamespaces',
  needsHelm,
  async () => {
    const r = await renderInOps(NAMESPACED);
    assert.equal(r.code, 0, r.stderr);
    const rendered = objects(r.stdout) as (Obj & { subjects?: { namespace?: string }[] })[];
    assert.deepEqual(
      rendered.filter((o) => o.kind.startsWith('Cluster') || o.kind === 'Namespace').map(key),
      [],
      'no cluster-scoped object',
    );
    for (const ns of ['team-a', 'team-b']) {
      for (const app of ['podset-watcher', 'podset-worker', 'podset-dashboard']) {
        const binding = rendered.find(
          (o) => o.kind === 'RoleBinding' && o.metadata.namespace === ns && o.metadata.name === app,
        );
        assert.ok(
          rendered.some((o) => o.kind === 'Role' && o.metadata.namespace === ns && o.metadata.name === app),
          `Role ${ns}/${app}`,
        );
        assert.equal(
          binding?.subjects?.[0]?.namespace,
          'ops',
          `RoleBinding ${ns}/${app} binds the release's ServiceAccount`,
        );
      }
    }
    const missing = await renderInOps(['--set', 'namespaced=true']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /namespaced: true needs watchNamespaces/);
    // Never its own namespace, namespaced or not: PodSets there could use the release's Secrets.
    for (const values of [NAMESPACED, []]) {
      const own = await renderInOps([...values, '--set', 'watchNamespaces={team-a,ops}']);
      assert.notEqual(own.code, 0, `${values.join(' ')}: ${own.stdout.slice(0, 200)}`);
      assert.match(own.stderr, /watchNamespaces lists "ops", the release's own namespace/);
    }
  },
);
