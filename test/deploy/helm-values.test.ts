// The chart's values.schema.json and NOTES.txt. Every values example the docs give (docs/install.md's helm
// commands and `--set` snippets, the chart README's) and each alternative values.yaml describes renders;
// wrong values are refused by helm itself, before any template runs, with an error naming the value. The
// notes helm prints after an install say whether the apps' egress to the API server is confined or
// limited by port only, and how to confine it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startKubeSim, type KubeObject } from '@podset/kube-sim';
import { CHART_DIR, REPO } from '../../scripts/gen-chart.ts';
import { helm, helmHomeEnv, needsHelm } from './helm-support.ts';

const template = (flags: string[]) =>
  helm(['template', 'podset-operator', CHART_DIR, '-n', 'podset-system', ...flags]);

/**
 * The `--set` flags of each helm example in a Markdown file: a shell command in a code block (lines
 * continued with `\` joined), or an inline code span. Shell quotes are taken off as the shell would.
 */
function setFlagsOf(markdown: string): string[][] {
  const snippets: string[] = [];
  const prose = markdown.replace(/^```[^\n]*\n([\s\S]*?)^```$/gm, (_m, block: string) => {
    snippets.push(...block.replaceAll(/\\\n\s*/g, ' ').split('\n'));
    return '';
  });
  for (const m of prose.matchAll(/`([^`\n]+)`/g)) snippets.push(m[1] as string);
  return snippets
    .filter((s) => /--set/.test(s))
    .map((s) =>
      [...s.matchAll(/(--set(?:-json|-string)?)[ =]('[^']*'|"[^"]*"|\S+)/g)].flatMap((m) => [
        m[1] as string,
        (m[2] as string).replace(/^(['"])(.*)\1$/, '$2'),
      ]),
    );
}

test(
  'the --set examples of docs/install.md and the chart README render with the chart',
  needsHelm,
  async () => {
    const examples = ['docs/install.md', path.relative(REPO, path.join(CHART_DIR, 'README.md'))].flatMap(
      (file) => setFlagsOf(readFileSync(path.join(REPO, file), 'utf8')).map((flags) => ({ file, flags })),
    );
    // image, namespaced and watchNamespaces, apiServerCIDRs, the Redis memory limit at least.
    assert.ok(examples.length >= 5, `examples found: ${JSON.stringify(examples)}`);
    for (const { file, flags } of examples) {
      const r = await template(flags);
      assert.equal(r.code, 0, `${file}: ${flags.join(' ')}: ${r.stderr}`);
    }
  },
);

/** What values.yaml's comments describe besides the defaults. */
const ALTERNATIVES: string[][] = [
  ['--set', 'image.repository=registry.example/podset-operator', '--set', 'image.tag=0.2.0'],
  ['--set', 'image.tag=20240101'],
  ['--set', 'watchNamespaces={shop,web}'],
  ['--set', 'namespaced=true', '--set', 'watchNamespaces={team-a}'],
  ['--set', 'apiServerCIDRs={172.18.0.2/32,172.18.0.3/32}'],
  ['--set', 'apiServerCIDRs={fd00::2/128}'],
  ['--set', 'stateSource=api'],
  ['--set', 'stateSource=projection'],
  ['--set', 'externalRedis.enabled=true', '--set', 'externalRedis.secretName=redis.conn'],
  ['--set', 'externalRedis.enabled=true', '--set', 'externalRedis.urlKey=REDIS_URL'],
  ['--set', 'externalRedis.enabled=true', '--set', 'externalRedis.aclUsers=false'],
  ['--set', 'worker.replicas=0'],
  ['--set', 'worker.resources.limits.cpu=2', '--set', 'worker.resources.requests.cpu=0.5'],
  ['--set-json', 'watcher.resources={"requests":{"cpu":"50m","memory":"1e8"},"limits":{"memory":"1G"}}'],
  ['--set', 'redis.resources.limits.memory=2Gi'],
];

test('each alternative values.yaml describes renders (values.schema.json allows it)', needsHelm, async () => {
  for (const flags of ALTERNATIVES) {
    const r = await template(flags);
    assert.equal(r.code, 0, `${flags.join(' ')}: ${r.stderr}`);
  }
});

/** Wrong values, and the line of helm's schema error that names each. */
const REFUSED: [string[], RegExp][] = [
  [['--set', 'worker.replicas=abc'], /- worker\.replicas: Invalid type\. Expected: integer, given: string/],
  [['--set', 'watcher.replicas=-1'], /- watcher\.replicas: Must be greater than or equal to 0/],
  [
    ['--set-json', 'dashboard.replicas=1.5'],
    /- dashboard\.replicas: Invalid type\. Expected: integer, given: number/,
  ],
  [['--set', 'apiServerCIDRs={1.2.3.4}'], /- apiServerCIDRs\.0: Does not match pattern/],
  [['--set', 'apiServerCIDRs={10.0.0.1/33}'], /- apiServerCIDRs\.0: Does not match pattern/],
  [['--set', 'apiServerCIDRs={api.example/32}'], /- apiServerCIDRs\.0: Does not match pattern/],
  [
    ['--set', 'stateSource=API'],
    /- stateSource: stateSource must be one of the following: "", "projection", "api"/,
  ],
  [['--set', 'namespaced=yes please'], /- namespaced: Invalid type\. Expected: boolean, given: string/],
  [['--set', 'watchNamespaces={Team_A}'], /- watchNamespaces\.0: Does not match pattern/],
  [
    ['--set', 'worker.resources.limits.memory=lots'],
    /- worker\.resources\.limits\.memory: Does not match pattern/,
  ],
  [
    ['--set', 'worker.resources.requests.cpu=-1'],
    /- worker\.resources\.requests\.cpu: Must be greater than or equal to 0/,
  ],
  [
    ['--set', 'worker.resources.requests.cpu=-100m'],
    /- worker\.resources\.requests\.cpu: Does not match pattern/,
  ],
  [['--set', 'externalRedis.secretName=Redis_Secret'], /- externalRedis\.secretName: Does not match pattern/],
  [
    ['--set', 'externalRedis.enabled=maybe'],
    /- externalRedis\.enabled: Invalid type\. Expected: boolean, given: string/,
  ],
  // A misspelt key would otherwise be ignored without a word.
  [['--set', 'worker.replica=3'], /- worker: Additional property replica is not allowed/],
  [
    ['--set', 'apiServerCidrs={10.0.0.1/32}'],
    /- \(root\): Additional property apiServerCidrs is not allowed/,
  ],
];

test('wrong values are refused by values.schema.json, and helm names each', needsHelm, async () => {
  for (const [flags, message] of REFUSED) {
    const r = await template(flags);
    assert.notEqual(r.code, 0, `${flags.join(' ')} rendered`);
    assert.match(r.stderr, /values don't meet the specifications of the schema/, flags.join(' '));
    assert.match(r.stderr, message, flags.join(' '));
  }
});

test(
  'the notes after an install say whether the egress to the API server is confined or port-only, and the next steps',
  needsHelm,
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-helm-notes-'));
    const sim = await startKubeSim({ kubeconfigPath: path.join(dir, 'kubeconfig'), controllers: false });
    const env = helmHomeEnv(dir);
    // --dry-run=server: rendered with the cluster's lookups, nothing created; helm prints the notes.
    const notes = async (flags: string[]) => {
      const r = await helm(
        [
          'install',
          'podset-operator',
          CHART_DIR,
          '-n',
          'ops',
          '--dry-run=server',
          '--kubeconfig',
          sim.kubeconfigPath,
          ...flags,
        ],
        env,
      );
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const at = r.stdout.indexOf('\nNOTES:\n');
      assert.ok(at >= 0, `no notes in ${r.stdout.slice(0, 300)}`);
      return r.stdout.slice(at);
    };
    try {
      sim.cluster.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ops' } });
      // kube-sim's `kubernetes` Endpoints emptied (a real server's always hold an address; an offline render
      // sees none, as here): nothing to look up, so port only, and how to confine it.
      const own = sim.cluster.get('endpoints', 'default', 'kubernetes') as KubeObject;
      sim.cluster.update('endpoints', { ...own, subsets: [] } as KubeObject);
      const portOnly = await notes(['--set', 'watchNamespaces={shop}']);
      assert.match(portOnly, /WARNING: egress to the API server is limited by PORT ONLY \(TCP 443 and 6443/);
      assert.match(portOnly, /kubectl get endpoints kubernetes -n default/);
      assert.match(portOnly, /--set 'apiServerCIDRs=\{IP\/32,\.\.\.\}'/);
      assert.doesNotMatch(portOnly, /is confined to/);
      // The next steps: the dashboard's token and how to reach it, the PodSets, the docs.
      assert.match(portOnly, /kubectl -n ops create secret generic podset-dashboard --from-literal=token=/);
      assert.match(
        portOnly,
        /kubectl -n ops get secret podset-dashboard -o jsonpath='\{\.data\.token\}' \| base64 -d/,
      );
      assert.match(portOnly, /kubectl -n ops port-forward svc\/podset-dashboard 8082/);
      assert.match(portOnly, /kubectl get podsets -A/);
      assert.match(portOnly, /reconciles those of shop/);
      assert.match(portOnly, /docs\/install\.md/);
      // Addresses given: confined, to them.
      const given = await notes(['--set', 'apiServerCIDRs={10.96.0.1/32}']);
      assert.match(given, /Egress to the API server is confined to 10\.96\.0\.1\/32 \(TCP 443 and 6443/);
      assert.match(given, /They are your apiServerCIDRs/);
      assert.doesNotMatch(given, /PORT ONLY/);
      // The cluster's Endpoints: looked up, confined to them.
      sim.cluster.update('endpoints', {
        ...(sim.cluster.get('endpoints', 'default', 'kubernetes') as KubeObject),
        subsets: [{ addresses: [{ ip: '172.18.0.2' }], ports: [{ port: 6443, protocol: 'TCP' }] }],
      } as KubeObject);
      const looked = await notes([]);
      assert.match(looked, /confined to 172\.18\.0\.2\/32 /);
      assert.match(looked, /looked up in the cluster: run helm upgrade again if the control plane moves/);
      assert.doesNotMatch(looked, /PORT ONLY/);
    } finally {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
