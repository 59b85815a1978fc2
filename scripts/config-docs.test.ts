import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIG_DOC, SECTIONS, renderConfigDoc } from './config-docs.ts';

test("docs/configuration.md's configuration tables match the apps' env specs", () => {
  const text = readFileSync(CONFIG_DOC, 'utf8');
  assert.equal(renderConfigDoc(text), text, 'docs/configuration.md is stale: run npm run gen:config-docs');
  for (const spec of Object.values(SECTIONS)) {
    for (const name of Object.keys(spec))
      assert.ok(text.includes(`| \`${name}\` |`), `${name} is documented`);
  }
});
