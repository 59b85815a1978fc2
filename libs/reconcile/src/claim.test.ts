import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod, podSet } from '../test/fixtures.ts';
import { claimPods, unlistedPodNames } from './claim.ts';
import type { Pod } from './types.ts';

const names = (ps: Pod[]) => ps.map((p) => p.metadata?.name);
const relabelled = (p: Pod, value: string | undefined): Pod => {
  const labels = { ...p.metadata!.labels };
  if (value === undefined) delete labels['podset.io/name'];
  else labels['podset.io/name'] = value;
  return { ...p, metadata: { ...p.metadata, labels } };
};

test('controlled and matching: owned; controlled, active and not matching: released', () => {
  const pods = [
    pod({ name: 'mine' }),
    relabelled(pod({ name: 'unlabelled' }), undefined),
    relabelled(pod({ name: 'other-name' }), 'debug'),
    relabelled(pod({ name: 'gone-anyway', deleting: true }), undefined),
    relabelled(pod({ name: 'finished', phase: 'Failed' }), undefined),
  ];
  const c = claimPods(podSet(), pods);
  assert.deepEqual(names(c.owned), ['mine']);
  assert.deepEqual(names(c.release), ['unlabelled', 'other-name'], 'only active pods are released');
  assert.deepEqual(c.adopt, []);
});

test('an active orphan that matches is adopted; not one being deleted, finished, or not matching', () => {
  const pods = [
    pod({ name: 'orphan', owner: null }),
    pod({ name: 'orphan-deleting', owner: null, deleting: true }),
    pod({ name: 'orphan-done', owner: null, phase: 'Succeeded' }),
    relabelled(pod({ name: 'orphan-elsewhere', owner: null }), 'other'),
  ];
  const c = claimPods(podSet(), pods);
  assert.deepEqual(names(c.adopt), ['orphan']);
  assert.deepEqual(c.owned, []);
  assert.deepEqual(c.release, []);
});

test('a pod controlled by another PodSet UID is never claimed, released or adopted', () => {
  const foreign = [
    pod({ name: 'old', owner: 'old-uid' }),
    relabelled(pod({ name: 'old2', owner: 'x' }), 'q'),
  ];
  assert.deepEqual(claimPods(podSet(), foreign), { owned: [], release: [], adopt: [] });
});

test('a PodSet being deleted neither releases nor adopts, and still owns what matches', () => {
  const ps = podSet();
  ps.metadata.deletionTimestamp = '2026-01-01T00:10:00Z';
  const c = claimPods(ps, [
    pod({ name: 'mine' }),
    relabelled(pod({ name: 'unlabelled' }), undefined),
    pod({ name: 'orphan', owner: null }),
  ]);
  assert.deepEqual(names(c.owned), ['mine']);
  assert.deepEqual(c.release, []);
  assert.deepEqual(c.adopt, []);
});

test('unlisted: the names the last status listed that a read lacks (a pod relabelled out, as a by-label read shows it)', () => {
  const ps = podSet();
  const withNames = { ...ps, status: { ...ps.status, podNames: ['a', 'b', 'c'] } };
  assert.deepEqual(unlistedPodNames(withNames, [pod({ name: 'a' }), pod({ name: 'c' })]), ['b']);
  assert.deepEqual(
    unlistedPodNames(withNames, [pod({ name: 'a' }), pod({ name: 'b' }), pod({ name: 'c' })]),
    [],
  );
  assert.deepEqual(unlistedPodNames(ps, [pod({ name: 'a' })]), [], 'no status names: nothing unlisted');
});
