import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { README, SECTIONS, renderReadme } from './config-docs.ts';

test("the README's configuration tables match the apps' env specs", () => {
  const text = readFileSync(README, 'utf8');
  assert.equal(renderReadme(text), text, 'README.md is stale: run node scripts/config-docs.ts');
  for (const spec of Object.values(SECTIONS)) {
    for (const name of Object.keys(spec))
      assert.ok(text.includes(`| \`${name}\` |`), `${name} is documented`);
  }
});
