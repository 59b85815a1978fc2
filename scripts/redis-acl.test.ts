import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { INSTALL_DOC, renderInstallDoc } from './redis-acl.ts';

test("docs/install.md's Redis ACL lines are generated from libs/redis's acl.ts", () => {
  const text = readFileSync(INSTALL_DOC, 'utf8');
  assert.equal(renderInstallDoc(text), text, 'docs/install.md is stale: run npm run redis-acl -- --docs');
  for (const user of ['podset-watcher', 'podset-worker', 'podset-dashboard'])
    assert.match(text, new RegExp(`ACL SETUSER ${user} reset on`));
  assert.match(text, /ACL SETUSER default off/);
});
