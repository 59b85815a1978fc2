// The deployment's YAML means the same to every reader. kubectl, kustomize's consumers and Helm read YAML
// 1.1 (an unquoted `yes` or `on` is a boolean there, `0755` octal, `1_000` a number); the project's own
// tools read YAML 1.2 (all strings). Every YAML file of k8s/, crds/, examples/ and the chart (but its
// templates, whose rendered output test/deploy/helm-chart.test.ts checks), and every patch written inline in a
// kustomization, must read alike in both: a value either could read otherwise is quoted.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { yamlVersionDifferences } from '../../scripts/k8s-yaml.ts';
import { REPO } from './support.ts';

const ROOTS = ['k8s', 'crds', 'examples', 'charts'];

function yamlFiles(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'templates' ? [] : yamlFiles(rel);
    return /\.ya?ml$/.test(e.name) ? [rel] : [];
  });
}

/** The patches a kustomization writes inline (`patches[].patch`), YAML in a string. */
function inlinePatches(text: string): string[] {
  const k = parse(text) as { patches?: { patch?: unknown }[] } | null;
  return (k?.patches ?? []).flatMap((p) => (typeof p.patch === 'string' ? [p.patch] : []));
}

const files = ROOTS.flatMap(yamlFiles).sort();

test('the deployment YAML files are found (k8s/ base and overlays, the CRD, the examples, the chart)', () => {
  for (const f of [
    'k8s/base/redis.yaml',
    'k8s/overlays/external-redis/kustomization.yaml',
    'crds/podset.yaml',
    'examples/web.yaml',
    'charts/podset-operator/values.yaml',
  ])
    assert.ok(files.includes(f), f);
});

test('every deployment YAML file, and every inline kustomize patch, reads alike in YAML 1.1 and 1.2', () => {
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(REPO, file), 'utf8');
    problems.push(...yamlVersionDifferences(text).map((d) => `${file}: ${d}`));
    if (path.basename(file) === 'kustomization.yaml') {
      inlinePatches(text).forEach((patch, i) =>
        problems.push(...yamlVersionDifferences(patch).map((d) => `${file}: patches[${i}]: ${d}`)),
      );
    }
  }
  assert.deepEqual(problems, [], 'quote these values (YAML 1.2 reading ≠ YAML 1.1 reading)');
});
