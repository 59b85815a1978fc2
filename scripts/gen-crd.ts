// Writes the pinned Kubernetes PodSpec schema (libs/reconcile/src/generated/pod-spec-schema.json, from
// scripts/pod-template-schema.ts) and then crds/podset.yaml from the PodSet schema.
// Usage: node scripts/gen-crd.ts [--check]
// --check: exit 1 if either file is stale instead of writing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KUBERNETES_VERSION, podSpecSchema, SOURCE_PACKAGE } from './pod-template-schema.ts';
import { POD_SPEC_SCHEMA_PATH } from '../libs/reconcile/src/pod-spec-path.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

/** Writes (or with --check compares) one generated file; false when --check finds it stale. */
function emit(relative: string, text: string): boolean {
  const path = join(root, relative);
  if (!check) {
    writeFileSync(path, text);
    console.log(`wrote ${relative}`);
    return true;
  }
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error(`${relative} is stale: run npm run gen:crd`);
    return false;
  }
  console.log(`${relative} is up to date`);
  return true;
}

const podSpec = { kubernetesVersion: KUBERNETES_VERSION, source: SOURCE_PACKAGE, podSpec: podSpecSchema() };
const podSpecFresh = emit(POD_SPEC_SCHEMA_PATH, `${JSON.stringify(podSpec, null, 1)}\n`);
// The CRD embeds the file just written, so it is rendered only now.
const { CRD_PATH, renderCrdYaml } = await import('../libs/reconcile/src/crd.ts');
const crdFresh = emit(CRD_PATH, renderCrdYaml());
if (!(podSpecFresh && crdFresh)) process.exit(1);
