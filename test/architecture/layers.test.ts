// The package boundaries are enforced by dependency-cruiser (.dependency-cruiser.mjs, run by `npm run lint`).
// This shows the rules bite: a scratch tree with the real config, real layer names and planted imports must
// be refused for each rule, and the same tree without the plants must pass.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO } from './walker.ts';

// Run by this Node: the bin's `env node` shebang would pick whatever `node` is first on PATH (the system's
// may be too old for dependency-cruiser when the test is not started through npm).
const DEPCRUISE = path.join(REPO, 'node_modules/.bin/depcruise');
const run = promisify(execFile);

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** A workspace package in the scratch tree: its package.json and one source file. */
function lib(root: string, name: string, deps: string[], source: string): void {
  const dir = path.join(root, 'libs', name);
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  const dependencies = Object.fromEntries(deps.map((d) => [`@podset/${d}`, '0.1.0']));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `@podset/${name}`, dependencies }));
  writeFileSync(path.join(dir, 'src/index.ts'), source);
}

/** Runs the real config over the scratch tree and returns the rules it broke. */
async function violations(root: string): Promise<Violation[]> {
  const out = await run(
    process.execPath,
    [DEPCRUISE, 'libs', '--config', '.dependency-cruiser.mjs', '--output-type', 'json'],
    {
      cwd: root,
    },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const result = JSON.parse(out.stdout) as { summary: { violations: Violation[] } };
  return result.summary.violations;
}

const scratch: string[] = [];
after(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** clock (lowest), redis above it, queue and state in one layer above redis. */
function tree(plants: { clock?: string; queue?: string; state?: string }): string {
  const root = mkdtempSync(path.join(tmpdir(), 'architecture-'));
  scratch.push(root);
  mkdirSync(path.join(root, 'apps'));
  mkdirSync(path.join(root, 'tools'));
  copyFileSync(path.join(REPO, '.dependency-cruiser.mjs'), path.join(root, '.dependency-cruiser.mjs'));
  lib(root, 'clock', [], plants.clock ?? 'export const now = 1;\n');
  lib(root, 'redis', ['clock'], "import { now } from '../../clock/src/index.ts';\nexport const key = now;\n");
  lib(
    root,
    'queue',
    ['redis'],
    plants.queue ?? "import { key } from '../../redis/src/index.ts';\nexport const q = key;\n",
  );
  lib(
    root,
    'state',
    ['redis'],
    plants.state ?? "import { key } from '../../redis/src/index.ts';\nexport const s = key;\n",
  );
  return root;
}

test('the boundary rules pass a tree that keeps them', async () => {
  assert.deepEqual(await violations(tree({})), []);
});

test('a lower layer importing a higher one is refused', async () => {
  const found = await violations(
    tree({ clock: "import { key } from '../../redis/src/index.ts';\nexport const now = key;\n" }),
  );
  assert.ok(
    found.some((v) => v.rule.name === 'layer' && v.from === 'libs/clock/src/index.ts'),
    JSON.stringify(found),
  );
});

test('an import of a package the importer does not declare is refused', async () => {
  // queue declares only redis; clock is lower, so only the declaration rule can catch this.
  const found = await violations(
    tree({ queue: "import { now } from '../../clock/src/index.ts';\nexport const q = now;\n" }),
  );
  assert.deepEqual(
    found.map((v) => [v.rule.name, v.from, v.to]),
    [['undeclared-dependency', 'libs/queue/src/index.ts', 'libs/clock/src/index.ts']],
  );
});

test('two packages of one layer importing each other are refused', async () => {
  const found = await violations(
    tree({
      queue: "import { s } from '../../state/src/index.ts';\nexport const q = s;\n",
      state: "import { q } from '../../queue/src/index.ts';\nexport const s = q;\n",
    }),
  );
  assert.ok(
    found.some((v) => v.rule.name === 'package-cycle'),
    JSON.stringify(found),
  );
});
