// One clock: in the sources of apps/ and libs/ the time is read only through a Clock
// (libs/clock/src/index.ts), so a test can put a fake one in and advance it instead of sleeping.
// Formatting a given moment (`new Date(ms)`) is fine; reading the time directly is not.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const REPO = path.resolve(import.meta.dirname, '..');
const CLOCK = 'libs/clock/src/index.ts';
/** Reading the time: Date.now (called or passed), performance.now, and a Date of no argument. */
const READS_TIME = /\bDate\.now\b|\bperformance\.now\b|\bnew Date\(\s*\)/;

/** The source without comments, so a comment may still name what it replaced. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

function readersOfTime(): string[] {
  return globSync('{apps,libs}/*/src/**/*.ts', { cwd: REPO })
    .filter((file) => !file.endsWith('.test.ts') && file !== CLOCK)
    .filter((file) => READS_TIME.test(code(readFileSync(path.join(REPO, file), 'utf8'))))
    .sort();
}

test('apps/ and libs/ read the time only through a Clock', () => {
  const readers = readersOfTime();
  assert.deepEqual(
    readers,
    [],
    'these files read the time directly: take a Clock (libs/clock/src/index.ts) instead',
  );
});

test('the check sees each way of reading the time, and not a given moment or a comment', () => {
  for (const reads of [
    'Date.now()',
    'const now = opts.now ?? Date.now;',
    'performance.now()',
    'new Date()',
  ]) {
    assert.match(code(reads), READS_TIME, reads);
  }
  for (const fine of [
    'new Date(ms).toISOString()',
    '// was Date.now()',
    '/* performance.now */ x',
    "'http://x'",
  ]) {
    assert.doesNotMatch(code(fine), READS_TIME, fine);
  }
});
