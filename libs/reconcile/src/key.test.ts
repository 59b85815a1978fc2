import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatKey, parseKey } from './key.ts';

test('a key is built from namespace and name and parsed back', () => {
  assert.equal(formatKey('default', 'web'), 'default/web');
  assert.deepEqual(parseKey(formatKey('ns-1', 'web.v2')), { namespace: 'ns-1', name: 'web.v2' });
});

test('parseKey refuses anything but one "/" between two non-empty parts', () => {
  for (const bad of ['', 'web', '/web', 'default/', 'a/b/c', '/'])
    assert.equal(parseKey(bad), undefined, bad);
});
