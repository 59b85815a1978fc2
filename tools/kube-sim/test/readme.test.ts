// The README's "In tests" example runs as it is written: the way to embed kube-sim that it shows works.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const README = new URL('../README.md', import.meta.url);
const REPO = path.resolve(import.meta.dirname, '../../..');

/** The ```ts blocks of one README section. */
function examples(section: string): string[] {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(`\n## ${section}\n`);
  assert.ok(start >= 0, `README has a section "${section}"`);
  const end = text.indexOf('\n## ', start + 1);
  const body = text.slice(start, end < 0 ? undefined : end);
  return [...body.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

test('README "In tests": the example passes as a test run from the repository root', async () => {
  const [code = ''] = examples('In tests');
  assert.ok(code.includes("from '@podset/kube-sim'"), 'the example imports the package');
  // A node:test run of its own: without this variable it would report to this runner instead.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module-typescript', '-e', code],
    { cwd: REPO, env, timeout: 60_000 },
  );
  assert.match(stdout, /^ℹ pass [1-9]/m, stdout);
  assert.match(stdout, /^ℹ fail 0$/m, stdout);
});
