// The shared walker every structure rule reads the tree through: if it wandered into node_modules or named
// files differently, every rule above it would judge the wrong tree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldersUnder, read, repoFiles, sourcesUnder } from './walker.ts';

test('files are repo-relative and sorted, node_modules, .tmp and .git left out', () => {
  const files = repoFiles('**/package.json');
  assert.ok(files.includes('package.json') && files.includes('libs/clock/package.json'), files.join(', '));
  assert.deepEqual(
    files.filter((f) => /(^|\/)(node_modules|\.tmp|\.git)\//.test(f)),
    [],
  );
  assert.deepEqual(files, [...files].sort());
});

test('sources under a folder are named relative to it; folders too', () => {
  const [index] = sourcesUnder('tools/kube-sim', 'src/index.ts');
  assert.equal(index?.file, 'src/index.ts');
  assert.equal(index?.text, read('tools/kube-sim/src/index.ts'));
  assert.ok(foldersUnder('tools/kube-sim/src').includes('server/filters'));
});
