import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyInScope, ownNamespaceProblems } from './namespace-scope.ts';

test('no list: every key is in scope', () => {
  assert.equal(keyInScope('team-b/web', []), true);
});

test('a list: only keys of its namespaces; a key without a namespace never', () => {
  const list = ['team-a', 'team-c'];
  assert.equal(keyInScope('team-a/web', list), true);
  assert.equal(keyInScope('team-c/db', list), true);
  assert.equal(keyInScope('team-b/web', list), false);
  assert.equal(keyInScope('team-a-x/web', list), false, 'a namespace that only starts like one');
  assert.equal(keyInScope('/team-a', list), false);
  assert.equal(keyInScope('team-a', list), false);
});

test('a list with the worker’s own namespace is refused; without POD_NAMESPACE or the own one, not', () => {
  const problems = ownNamespaceProblems({
    WATCH_NAMESPACES: ['team-a', 'podset-system'],
    POD_NAMESPACE: 'podset-system',
  });
  assert.equal(problems.length, 1);
  assert.equal(problems[0]?.variable, 'WATCH_NAMESPACES');
  assert.match(problems[0]?.message ?? '', /"podset-system", the worker's own namespace/);
  assert.deepEqual(
    ownNamespaceProblems({ WATCH_NAMESPACES: ['team-a'], POD_NAMESPACE: 'podset-system' }),
    [],
  );
  assert.deepEqual(
    ownNamespaceProblems({ WATCH_NAMESPACES: ['podset-system'], POD_NAMESPACE: undefined }),
    [],
  );
  assert.deepEqual(ownNamespaceProblems({ WATCH_NAMESPACES: [], POD_NAMESPACE: 'podset-system' }), []);
});
