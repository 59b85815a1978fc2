import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyInScope } from './namespace-scope.ts';

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
  assert.equal(keyInScope('team-a/web/x', list), false, 'not a key');
});
