// Replays: an entry older than what this worker already planned from (or wrote) is refused — by
// resourceVersion, and by generation for the same object — and a read with a refused entry records nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeenVersions } from './seen-versions.ts';

const ps = (rv: string, generation = 1, uid = 'u1') => ({ rv, uid, generation });

test('an older PodSet version than one seen is refused; the same or a newer one passes', () => {
  const seen = new SeenVersions();
  assert.deepEqual(seen.check('ns/a', ps('10'), []), []);
  assert.deepEqual(seen.check('ns/a', ps('10'), []), [], 'the same again');
  assert.deepEqual(seen.check('ns/a', ps('12', 2), []), []);
  assert.deepEqual(seen.check('ns/a', ps('10'), []), [{ kind: 'podset', field: '@ps' }], 'replayed');
  assert.deepEqual(seen.check('ns/a', ps('9', 3), []), [{ kind: 'podset', field: '@ps' }], 'an older rv');
  assert.deepEqual(seen.check('ns/b', ps('5'), []), [], 'another key is its own');
});

test('an older generation of the same object is refused even with a newer rv; a new object (uid) starts again', () => {
  const seen = new SeenVersions();
  seen.check('ns/a', ps('10', 4), []);
  assert.deepEqual(seen.check('ns/a', ps('11', 3), []), [{ kind: 'podset', field: '@ps' }]);
  assert.deepEqual(seen.check('ns/a', ps('20', 1, 'u2'), []), [], 'deleted and created again under its name');
});

test('our own write counts as seen', () => {
  const seen = new SeenVersions();
  seen.check('ns/a', ps('10'), []);
  seen.saw('ns/a', ps('15'));
  assert.deepEqual(seen.check('ns/a', ps('10'), []), [{ kind: 'podset', field: '@ps' }]);
  seen.saw('ns/a', ps('12'));
  assert.deepEqual(
    seen.check('ns/a', ps('14'), []),
    [{ kind: 'podset', field: '@ps' }],
    'an older write lowers nothing',
  );
});

test('an older pod entry than one seen is refused; a refused read records nothing', () => {
  const seen = new SeenVersions();
  seen.check('ns/a', ps('10'), [
    { name: 'p1', rv: '20' },
    { name: 'p2', rv: '21' },
  ]);
  assert.deepEqual(
    seen.check('ns/a', ps('10'), [
      { name: 'p1', rv: '19' },
      { name: 'p2', rv: '30' },
    ]),
    [{ kind: 'pod', field: 'p1' }],
  );
  // p2 at 30 was not recorded (the read was refused): 25 still passes.
  assert.deepEqual(
    seen.check('ns/a', ps('10'), [
      { name: 'p1', rv: '20' },
      { name: 'p2', rv: '25' },
    ]),
    [],
  );
});

test('opaque resourceVersions cannot be ordered: never refused as older', () => {
  const seen = new SeenVersions();
  seen.check('ns/a', ps('abc'), []);
  assert.deepEqual(seen.check('ns/a', ps('abb'), []), []);
});

test('forget drops the pods but keeps the PodSet version: its entry from before cannot come back', () => {
  const seen = new SeenVersions();
  seen.check('ns/a', ps('10'), [{ name: 'p1', rv: '20' }]);
  seen.forget('ns/a');
  assert.deepEqual(seen.check('ns/a', ps('9'), [{ name: 'p1', rv: '5' }]), [
    { kind: 'podset', field: '@ps' },
  ]);
  assert.deepEqual(
    seen.check('ns/a', ps('12'), [{ name: 'p1', rv: '5' }]),
    [],
    'its pod is not held against it',
  );
});

test('a version above the API lowers to the API: a huge one accepted once does not refuse the true ones for good', () => {
  const seen = new SeenVersions();
  seen.check('ns/a', ps('99999999999999999999'), [{ name: 'p1', rv: '99999999999999999999' }]);
  assert.deepEqual(seen.check('ns/a', ps('12'), [{ name: 'p1', rv: '13' }]), [
    { kind: 'podset', field: '@ps' },
    { kind: 'pod', field: 'p1' },
  ]);
  // The refusal sent the key to the API, which has the PodSet at 12 and p1 at 13.
  seen.fromApi('ns/a', ps('12'));
  seen.podsFromApi('ns/a', [{ name: 'p1', rv: '13' }]);
  assert.deepEqual(seen.check('ns/a', ps('12'), [{ name: 'p1', rv: '13' }]), [], 'the true ones pass again');
  assert.deepEqual(
    seen.check('ns/a', ps('11'), []),
    [{ kind: 'podset', field: '@ps' }],
    'older still refused',
  );
  seen.fromApi('ns/a', undefined);
  assert.equal(seen.size, 0, 'gone from the API: forgotten');
});

test('at most maxKeys keys are remembered, the least recently used forgotten first', () => {
  const seen = new SeenVersions(2);
  seen.check('ns/a', ps('10'), [{ name: 'p1', rv: '20' }]);
  seen.check('ns/b', ps('10'), []);
  seen.check('ns/a', ps('11'), [{ name: 'p1', rv: '20' }]); // a is used again: b is now the oldest
  seen.check('ns/c', ps('10'), []);
  assert.equal(seen.size, 2);
  assert.deepEqual(seen.check('ns/c', ps('1'), []), [{ kind: 'podset', field: '@ps' }], 'c remembered');
  assert.deepEqual(seen.check('ns/b', ps('1'), []), [], 'b forgotten: nothing to refuse it against');
  // Recording b forgot a, the least recently used now.
  assert.deepEqual(seen.check('ns/a', ps('1'), [{ name: 'p1', rv: '1' }]), [], 'a forgotten, its pods too');
  assert.equal(seen.size, 2);
});
