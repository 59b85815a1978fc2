// The Helm chart is k8s/ in another form: generated from `kubectl kustomize k8s` (scripts/gen-chart.ts),
// and `helm template` with the default values gives back the same objects (but the Namespace, which the
// release does not own, and cluster-scoped names, which carry the release's namespace); with
// externalRedis.enabled, those of k8s/overlays/external-redis. The other values (replicas, resources,
// watchNamespaces, namespaced) are checked in the rendered objects, and three releases are installed (two cluster-wide). helm comes from
// scripts/install-helm.sh (.ci/run installs it); without it the helm checks skip and say so.
// What helm prints is read as Helm and kubectl read it, YAML 1.1 (an unquoted `yes` is a boolean there),
// and kubectl's own decoder must read every value as YAML 1.2 does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startKubeSim, type KubeObject } from '@podset/kube-sim';
import { kubectl as runKubectl } from '@podset/testkit';
import { parseAllDocuments } from 'yaml';
import { parseK8sYaml, valueDifferences } from '../../scripts/k8s-yaml.ts';
import {
  CHART_DIR,
  REPO,
  chartFiles,
  chartSources,
  kustomizeObjects,
  packageVersion,
  staleFiles,
} from '../../scripts/gen-chart.ts';
import type { K8sObject } from './manifests.ts';
import { allowed, type Endpoint, type NetworkPolicy } from './network-policy.ts';
import { secondApplyChanges, type RunKubectl } from './second-apply.ts';
import { helmHomeEnv, needsHelm } from './helm-support.ts';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: { name: string; image: string }[] } } };
}

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
const objects = (yaml: string): Obj[] => parseK8sYaml<Obj>(yaml);
const key = (o: Obj) => `${o.kind} ${o.metadata.namespace ?? '-'}/${o.metadata.name}`;
const byKey = (list: Obj[]) => new Map(list.map((o) => [key(o), o]));

const NS = 'podset-system';
/** What kustomize renders, as the chart renders it into NS: no Namespace (not the release's), cluster-wide RBAC named after the namespace. */
function asReleased(list: Obj[]): Obj[] {
  return list
    .filter((o) => o.kind !== 'Namespace')
    .map((o) => {
      if (o.kind !== 'ClusterRole' && o.kind !== 'ClusterRoleBinding') return o;
      const c = structuredClone(o) as Obj & { roleRef?: { name: string } };
      c.metadata.name = `${NS}-${o.metadata.name}`;
      if (c.roleRef) c.roleRef.name = `${NS}-${c.roleRef.name}`;
      return c;
    });
}
const kustomized = kustomizeObjects() as unknown as Obj[];

/** The object without the Helm hook annotations the chart adds to the secret-init objects. */
function withoutHookAnnotations(o: Obj): Obj {
  const m = o.metadata as Obj['metadata'] & { annotations?: Record<string, string> };
  if (m.annotations === undefined || !Object.keys(m.annotations).some((k) => k.startsWith('helm.sh/hook')))
    return o;
  const c = structuredClone(o) as Obj & { metadata: { annotations?: Record<string, string> } };
  const rest = Object.entries(c.metadata.annotations ?? {}).filter(([k]) => !k.startsWith('helm.sh/hook'));
  if (rest.length === 0) delete c.metadata.annotations;
  else c.metadata.annotations = Object.fromEntries(rest);
  return c;
}

test('the secret-init Job, its ServiceAccount, Role and RoleBinding are hooks deleted once the Job succeeded', () => {
  const hooks = kustomized.filter((o) => o.metadata.name === 'podset-redis-secret-init');
  assert.deepEqual(hooks.map((o) => o.kind).sort(), ['Job', 'Role', 'RoleBinding', 'ServiceAccount']);
  for (const o of hooks) {
    const text = readFileSync(
      path.join(CHART_DIR, 'templates', `${o.kind.toLowerCase()}-podset-redis-secret-init.yaml`),
      'utf8',
    );
    const rendered = objects(
      text.replace(/^\{\{.*\}\}$/gm, '').replaceAll('{{ .Release.Namespace }}', NS),
    )[0];
    const annotations = (rendered?.metadata as { annotations?: Record<string, string> }).annotations ?? {};
    assert.equal(annotations['helm.sh/hook'], 'pre-install,pre-upgrade', `${o.kind} is a hook`);
    assert.match(
      annotations['helm.sh/hook-delete-policy'] ?? '',
      /\bhook-succeeded\b/,
      `${o.kind} deleted after`,
    );
    assert.match(annotations['helm.sh/hook-delete-policy'] ?? '', /\bbefore-hook-creation\b/);
    // The account and its rights exist before the Job runs.
    assert.equal(Number(annotations['helm.sh/hook-weight']) < 0, o.kind !== 'Job', `${o.kind} weight`);
  }
});

test('the chart is what scripts/gen-chart.ts makes of k8s/ (npm run gen:chart to refresh)', () => {
  const want = chartFiles(chartSources(), packageVersion());
  assert.deepEqual(staleFiles(want), []);
  assert.ok(want.has('crds/podsets.podset.io.yaml'), 'the CRD is in crds/, which helm uninstall keeps');
  assert.ok(!want.has('templates/namespace.yaml'), 'the release does not own its Namespace');
});

const NAMESPACED = ['--set', 'namespaced=true', '--set', 'watchNamespaces={team-a,team-b}'];
const EXTERNAL = ['--set', 'externalRedis.enabled=true', '--set', 'externalRedis.secretName=redis-conn'];

test('helm lint --strict passes, with the default values and with the new ones', needsHelm, async () => {
  for (const values of [[], NAMESPACED, EXTERNAL, [...NAMESPACED, ...EXTERNAL]]) {
    const r = await helm(['lint', '--strict', CHART_DIR, ...values]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  }
});

/**
 * The documents of a manifest as kubectl decodes them (sigs.k8s.io/yaml, the YAML 1.1 reading it sends
 * to the API server, as Helm does): `kubectl label --local -o json` prints each object without asking a
 * server; removing a label no object has changes nothing but adding `metadata.labels: {}` where none were.
 */
async function decodedByKubectl(text: string): Promise<unknown[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-decode-'));
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = execFile(
        'kubectl',
        ['label', '--local', '-f', '-', '-o', 'json', 'podset.io/not-a-label-'],
        { env: { PATH: process.env.PATH ?? '', HOME: dir }, maxBuffer: 64 << 20, timeout: 60_000 },
        (err, stdout, stderr) =>
          err === null ? resolve(stdout) : reject(new Error(`${err.message}${stderr}`)),
      );
      child.stdin?.end(text);
    });
    // One pretty-printed JSON object after another: a line `}` then a line `{` only between two objects.
    return JSON.parse(`[${out.trim().replaceAll(/^\}\n\{$/gm, '},\n{')}]`) as unknown[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test(
  "every value of the chart's objects is what kubectl decodes (YAML 1.1), as YAML 1.2 reads it: nothing like an unquoted `yes`",
  needsHelm,
  async () => {
    for (const values of [[], NAMESPACED, EXTERNAL, [...NAMESPACED, ...EXTERNAL]]) {
      const r = await helm(['template', 'podset-operator', CHART_DIR, '--include-crds', '-n', NS, ...values]);
      assert.equal(r.code, 0, r.stderr);
      const v12 = parseAllDocuments(r.stdout)
        .map((d) => d.toJS() as Obj | null)
        .filter((o): o is Obj => o !== null);
      const decoded = (await decodedByKubectl(r.stdout)) as Obj[];
      assert.equal(decoded.length, v12.length, `kubectl decoded every object (${values.join(' ')})`);
      const differences = v12.flatMap((o, i) => {
        const d = structuredClone(decoded[i]) as Obj & { metadata: { labels?: object } };
        const labels = d.metadata.labels;
        if (!('labels' in o.metadata) && labels !== undefined && Object.keys(labels).length === 0)
          delete d.metadata.labels;
        return valueDifferences(o, d).map((x) => `${key(o)}: ${x}`);
      });
      assert.deepEqual(differences, [], `helm template ${values.join(' ')}: YAML 1.2 ≠ kubectl's reading`);
    }
  },
);

for (const [what, dir, values] of [
  ['the default values', path.join(REPO, 'k8s'), []],
  [
    'externalRedis.enabled',
    path.join(REPO, 'k8s/overlays/external-redis'),
    ['--set', 'externalRedis.enabled=true'],
  ],
] as const) {
  test(
    `helm template with ${what} gives the objects kubectl kustomize gives (${path.relative(REPO, dir)})`,
    needsHelm,
    async () => {
      const r = await helm(['template', 'podset-operator', CHART_DIR, '--include-crds', '-n', NS, ...values]);
      assert.equal(r.code, 0, r.stderr);
      const rendered = byKey(objects(r.stdout).map(withoutHookAnnotations));
      const want = byKey(asReleased(kustomizeObjects(dir) as unknown as Obj[]));
      assert.deepEqual([...rendered.keys()].sort(), [...want.keys()].sort());
      for (const [k, o] of want) assert.deepEqual(rendered.get(k), o, k);
    },
  );
}

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
