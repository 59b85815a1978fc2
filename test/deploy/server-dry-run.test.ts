// Every manifest set this project ships, sent as a user's client sends it, to a server as strict as a real
// one: k8s/ and each overlay rendered by every kubectl from 1.27 to 1.33 (users' kubectl follows their
// cluster, and kustomize's abilities differ between those clients), and the Helm chart's variants rendered
// by the real `helm template` (Helm, like kubectl, reads YAML 1.1: an unquoted `yes` is a boolean there),
// each piped into `kubectl apply --dry-run=server -f -`. kube-sim decodes built-in kinds by type and kubectl
// sends fieldValidation=Strict, so a value of the wrong type or an unknown field fails the set, as a real API
// server would refuse it. One kube-sim serves every set; it has the namespaces the sets name and the CRDs
// they need: the PodSet's, and stand-ins (any content) for KEDA's and the Prometheus Operator's kinds.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startKubeSim, type KubeSim } from '@podset/kube-sim';
import { kubectl, type KubectlResult } from '@podset/testkit';
import { CHART_DIR } from '../../scripts/gen-chart.ts';
import { REPO } from './support.ts';

/** The kubectl clients the manifests must work with (docs/install.md). */
const VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];
const NS = 'podset-system';
/** The namespaces the chart's variants below name (the release's and the watched ones). */
const NAMESPACES = [NS, 'team-a', 'team-b', 'shop', 'web'];

const kustomizations = [
  'k8s',
  ...readdirSync(path.join(REPO, 'k8s/overlays'), { withFileTypes: true })
    .filter(
      (d) => d.isDirectory() && existsSync(path.join(REPO, 'k8s/overlays', d.name, 'kustomization.yaml')),
    )
    .map((d) => `k8s/overlays/${d.name}`)
    .sort(),
];

const NAMESPACED = ['--set', 'namespaced=true', '--set', 'watchNamespaces={team-a,team-b}'];
const EXTERNAL = ['--set', 'externalRedis.enabled=true', '--set', 'externalRedis.secretName=redis-conn'];
/** The values test/deploy/helm-chart.test.ts renders the chart with. */
const CHART_VARIANTS: [string, string[]][] = [
  // helm template has no cluster to look the API server's addresses up in: by port only, as k8s/.
  ['the default values', []],
  ['apiServerCIDRs (egress confined)', ['--set', 'apiServerCIDRs={172.18.0.2/32,fd00::2/128}']],
  ['namespaced=true', NAMESPACED],
  ['externalRedis.enabled=true', EXTERNAL],
  ['namespaced=true and externalRedis.enabled=true', [...NAMESPACED, ...EXTERNAL]],
  ['stateSource=api', ['--set', 'stateSource=api']],
  [
    'image, replicas, resources and watched namespaces',
    [
      '--set',
      'image.repository=registry.example/podset-operator',
      '--set',
      'image.tag=1.2.3',
      '--set',
      'worker.replicas=7',
      '--set-json',
      'worker.resources={"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"cpu":"2","memory":"1Gi"}}',
      '--set',
      'watchNamespaces={shop,web}',
      ...EXTERNAL,
    ],
  ],
];

/** The directory of the `kubectl` on PATH (symlinks resolved), where the older clients are installed too. */
function kubectlDir(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, 'kubectl');
    if (dir && existsSync(p)) return path.dirname(realpathSync(p));
  }
  return undefined;
}
const KUBECTL_DIR = kubectlDir();
const clients = VERSIONS.map((v) => ({ version: v, binary: path.join(KUBECTL_DIR ?? '', `kubectl.${v}`) }));
const missing = clients.filter((c) => !existsSync(c.binary)).map((c) => `kubectl.${c.version}`);
// A developer's machine without the older clients skips and says so; CI (which has them) fails instead.
const needsClients = {
  skip:
    missing.length && !process.env.CI
      ? `${missing.join(', ')} not installed beside kubectl (${KUBECTL_DIR ?? 'no kubectl on PATH'})`
      : false,
};

const hasHelm = (await run('helm', ['version', '--short'])).code === 0;
const needsHelm = {
  skip: hasHelm || process.env.CI ? false : 'helm is not installed (bash scripts/install-helm.sh)',
};

function run(command: string, args: string[]): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: REPO, maxBuffer: 64 << 20, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

/** Runs the jobs at most `limit` at a time (the machine is small; each kubectl is a process). */
function pool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T>[] {
  let running = 0;
  const waiting: (() => void)[] = [];
  return jobs.map(async (job) => {
    if (running >= limit) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  });
}

const standInCrd = (group: string, kind: string, plural: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [
      {
        name: group === 'keda.sh' ? 'v1alpha1' : 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
});

let sim: KubeSim;
let dir: string;
/** Each kustomization's render by each client, started together when the file loads. */
let renders: Map<string, Promise<KubectlResult>[]>;

const client = (binary: string | undefined, args: string[], input?: string) =>
  kubectl(args, {
    kubeconfig: path.join(dir, 'kubeconfig'),
    cacheDir: path.join(dir, `cache-${path.basename(binary ?? 'kubectl')}`),
    cwd: REPO,
    timeoutMs: 120_000,
    allowFail: true,
    ...(binary ? { binary } : {}),
    ...(input === undefined ? {} : { input }),
  });

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'podset-server-dry-run-'));
  const jobs = kustomizations.flatMap((k) =>
    clients.map(
      (c) => () => (existsSync(c.binary) ? run(c.binary, ['kustomize', k]) : missingClient(c.binary)),
    ),
  );
  const started = pool(jobs, 3);
  renders = new Map(
    kustomizations.map((k, i) => [k, started.slice(i * clients.length, (i + 1) * clients.length)]),
  );
  // Objects that apply dry runs never create: controllers would only add load.
  sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig'), controllers: false });
  const setup = [
    ...NAMESPACES.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
    standInCrd('keda.sh', 'ScaledObject', 'scaledobjects'),
    standInCrd('monitoring.coreos.com', 'ServiceMonitor', 'servicemonitors'),
    standInCrd('monitoring.coreos.com', 'PrometheusRule', 'prometheusrules'),
  ];
  const made = await client(
    undefined,
    ['apply', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: setup }),
  );
  assert.equal(made.code, 0, made.stderr);
  const crd = await client(undefined, ['apply', '-k', 'crds']);
  assert.equal(crd.code, 0, crd.stderr);
});

after(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function missingClient(binary: string): Promise<KubectlResult> {
  return Promise.resolve({ code: 127, stdout: '', stderr: `${binary} is not installed` });
}

/** `kubectl apply --dry-run=server` of a rendered set; the problems it reports (none when it applies cleanly). */
async function dryRun(binary: string | undefined, manifests: string): Promise<string[]> {
  const r = await client(binary, ['apply', '--dry-run=server', '-f', '-'], manifests);
  const problems: string[] = [];
  if (r.code !== 0) problems.push(`exit ${r.code}: ${r.stderr.trim()}`);
  else if (/unknown field|duplicate field/.test(r.stderr)) problems.push(r.stderr.trim());
  return problems;
}

for (const k of kustomizations) {
  test(
    `${k}: every kubectl from 1.27 to 1.33 renders it, and a strict server dry run accepts it`,
    needsClients,
    async () => {
      const results = await Promise.all(renders.get(k) ?? []);
      const problems: string[] = [];
      const applied = new Map<string, string>(); // one dry run per distinct rendering
      for (const [i, r] of results.entries()) {
        const c = clients[i] as (typeof clients)[number];
        if (r.code !== 0) {
          problems.push(
            `kubectl ${c.version} kustomize ${k}: ${r.stderr.trim().split('\n').slice(0, 3).join(' ')}`,
          );
          continue;
        }
        assert.ok(r.stdout.includes('kind:'), `kubectl ${c.version} rendered nothing for ${k}`);
        if (applied.has(r.stdout)) continue;
        applied.set(r.stdout, c.version);
        for (const p of await dryRun(c.binary, r.stdout))
          problems.push(`kubectl ${c.version} apply --dry-run=server (${k}): ${p}`);
      }
      assert.deepEqual(problems, []);
    },
  );
}

for (const [what, values] of CHART_VARIANTS) {
  test(
    `the chart with ${what}: helm template renders it and a strict server dry run accepts it`,
    needsHelm,
    async () => {
      const r = await run('helm', [
        'template',
        'podset-operator',
        CHART_DIR,
        '--include-crds',
        '-n',
        NS,
        ...values,
      ]);
      assert.equal(r.code, 0, `helm template: ${r.stderr}`);
      assert.deepEqual(await dryRun(undefined, r.stdout), []);
    },
  );
}
