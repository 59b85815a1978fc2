// The Helm chart is k8s/ in another form: generated from `kubectl kustomize k8s` (scripts/gen-chart.ts),
// and `helm template` with the default values gives back the same objects (but the Namespace, which the
// release does not own, and cluster-scoped names, which carry the release's namespace); with
// externalRedis.enabled, those of k8s/overlays/external-redis. It lints, and what helm prints is read as Helm
// and kubectl read it, YAML 1.1 (an unquoted `yes` is a boolean there): kubectl's own decoder must read every
// value as YAML 1.2 does. helm comes from scripts/install-helm.sh (.ci/run installs it); without it the helm
// checks skip and say so.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { valueDifferences } from '../../scripts/k8s-yaml.ts';
import {
  CHART_DIR,
  REPO,
  chartFiles,
  chartSources,
  kustomizeObjects,
  packageVersion,
  staleFiles,
} from '../../scripts/gen-chart.ts';
import {
  EXTERNAL,
  NAMESPACED,
  NS,
  asReleased,
  helm,
  key,
  needsHelm,
  objects,
  type Obj,
} from './helm-support.ts';

const byKey = (list: Obj[]) => new Map(list.map((o) => [key(o), o]));
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
