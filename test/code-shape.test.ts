// The operator's code stays readable in one look: no function in apps/ or libs/ over 120 lines, so a
// reader meets named steps, not a wall (the planner, the controller and the dashboard were split for it).
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { functionLengths } from './support/function-lengths.ts';

const REPO = path.resolve(import.meta.dirname, '..');
const MAX_FUNCTION_LINES = 120;

const sources = globSync(['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'], { cwd: REPO }).filter(
  (f) => !f.endsWith('.test.ts'),
);

test('the measure sees a long function, a method and an arrow function', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
  const text = [
    `function long() {\n  let x = 0;\n${body(130)}\n  return x;\n}`,
    `class Loop {\n  #watchOnce() {\n${body(3)}\n  }\n}`,
    `const arrow = () => {\n${body(1)}\n};`,
  ].join('\n');
  const found = functionLengths('sample.ts', text);
  assert.deepEqual(
    found.map((f) => [f.name, f.lines]),
    [
      ['long', 134],
      ['Loop#watchOnce', 5],
      ['arrow', 3],
    ],
  );
});

test(`no function in apps/ or libs/ is longer than ${MAX_FUNCTION_LINES} lines`, () => {
  assert.ok(sources.length > 100, `sources found: ${sources.length}`);
  const long = sources.flatMap((file) =>
    functionLengths(file, readFileSync(path.join(REPO, file), 'utf8'))
      .filter((f) => f.lines > MAX_FUNCTION_LINES)
      .map((f) => `${file}:${f.line} ${f.name} (${f.lines} lines)`),
  );
  assert.deepEqual(long, []);
});
