import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KeyedEvent } from './change-gate.ts';
import { supersededInBatch } from './superseded.ts';

const ev = (
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  name: string,
  key = 'ns/web',
  resource = 'pods',
): KeyedEvent =>
  ({
    key,
    ev: { stream: 'pods/*', resource, type, rv: '1', object: { metadata: { name, namespace: 'ns' } } },
  }) as KeyedEvent;

const skipped = (events: KeyedEvent[]) =>
  (supersededInBatch(events) ?? events.map(() => false)).flatMap((s, i) => (s ? [i] : []));

test('a MODIFIED followed by another MODIFIED of its object in the batch is skipped; the last one is folded', () => {
  assert.deepEqual(
    skipped([ev('MODIFIED', 'a'), ev('MODIFIED', 'b'), ev('MODIFIED', 'a'), ev('MODIFIED', 'a')]),
    [0, 2],
  );
});

test('nothing to skip: undefined, not an array of false', () => {
  assert.equal(supersededInBatch([]), undefined);
  assert.equal(supersededInBatch([ev('MODIFIED', 'a')]), undefined);
  assert.equal(supersededInBatch([ev('MODIFIED', 'a'), ev('MODIFIED', 'b')]), undefined);
});

test('an ADDED is always folded, and so is the event before a DELETED', () => {
  assert.deepEqual(skipped([ev('ADDED', 'a'), ev('MODIFIED', 'a')]), []);
  assert.deepEqual(skipped([ev('ADDED', 'a'), ev('MODIFIED', 'a'), ev('MODIFIED', 'a')]), [1]);
  assert.deepEqual(skipped([ev('MODIFIED', 'a'), ev('MODIFIED', 'a'), ev('DELETED', 'a')]), [0]);
  // A pod of the same name created again after the DELETED: its events are another object's.
  assert.deepEqual(
    skipped([ev('MODIFIED', 'a'), ev('DELETED', 'a'), ev('ADDED', 'a'), ev('MODIFIED', 'a')]),
    [],
  );
});

test('the same name under another PodSet key, or of the other kind, is another object', () => {
  assert.deepEqual(skipped([ev('MODIFIED', 'a', 'ns/web'), ev('MODIFIED', 'a', 'ns/api')]), []);
  assert.deepEqual(
    skipped([ev('MODIFIED', 'web', 'ns/web', 'podsets'), ev('MODIFIED', 'web', 'ns/web', 'pods')]),
    [],
  );
  assert.deepEqual(
    skipped([ev('MODIFIED', 'web', 'ns/web', 'podsets'), ev('MODIFIED', 'web', 'ns/web', 'podsets')]),
    [0],
  );
});
