import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownNamespaceProblems } from './own-namespace.ts';

const worker = { own: "the worker's own namespace", instead: 'reconcile in other namespaces only' };

test('a list with the app’s own namespace is refused in its words; without POD_NAMESPACE or the own one, not', () => {
  const problems = ownNamespaceProblems(
    { WATCH_NAMESPACES: ['team-a', 'podset-system'], POD_NAMESPACE: 'podset-system' },
    worker,
  );
  assert.equal(problems.length, 1);
  assert.equal(problems[0]?.variable, 'WATCH_NAMESPACES');
  assert.match(problems[0]?.message ?? '', /"podset-system", the worker's own namespace/);
  assert.match(problems[0]?.message ?? '', /reconcile in other namespaces only$/);
  assert.deepEqual(
    ownNamespaceProblems({ WATCH_NAMESPACES: ['team-a'], POD_NAMESPACE: 'podset-system' }, worker),
    [],
  );
  assert.deepEqual(
    ownNamespaceProblems({ WATCH_NAMESPACES: ['podset-system'], POD_NAMESPACE: undefined }, worker),
    [],
  );
  assert.deepEqual(
    ownNamespaceProblems({ WATCH_NAMESPACES: [], POD_NAMESPACE: 'podset-system' }, worker),
    [],
  );
});
