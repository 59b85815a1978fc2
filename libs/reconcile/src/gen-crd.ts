// Writes crds/podset.yaml from the schema. Usage: node libs/reconcile/src/gen-crd.ts [--check]
// --check: exit 1 if the file is stale instead of writing it.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRD_PATH, renderCrdYaml } from './crd.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const path = join(root, CRD_PATH);
const text = renderCrdYaml();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error(`${CRD_PATH} is stale: run npm run gen:crd`);
    process.exit(1);
  }
  console.log(`${CRD_PATH} is up to date`);
} else {
  writeFileSync(path, text);
  console.log(`wrote ${CRD_PATH}`);
}
