import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod, podSet, UID } from '../test/fixtures.ts';
import { controlledPods, controllerRef, isControlledBy, podSetKeyOf } from './ownership.ts';

test('a pod is controlled only through a controller ref of kind PodSet with the same UID', () => {
  const ps = podSet();
  assert.equal(isControlledBy(pod({ name: 'a' }), ps), true);
  assert.equal(isControlledBy(pod({ name: 'b', owner: 'other-uid' }), ps), false);
  assert.equal(isControlledBy(pod({ name: 'c', owner: null }), ps), false);
  const notController = pod({ name: 'd' });
  notController.metadata!.ownerReferences![0]!.controller = false;
  assert.equal(isControlledBy(notController, ps), false);
  const otherKind = pod({ name: 'e' });
  otherKind.metadata!.ownerReferences![0]!.kind = 'ReplicaSet';
  assert.equal(isControlledBy(otherKind, ps), false);
  const otherGroup = pod({ name: 'f' });
  otherGroup.metadata!.ownerReferences![0]!.apiVersion = 'apps/v1';
  assert.equal(isControlledBy(otherGroup, ps), false);
  const otherVersion = pod({ name: 'g' });
  otherVersion.metadata!.ownerReferences![0]!.apiVersion = 'podset.io/v2';
  assert.equal(isControlledBy(otherVersion, ps), false);
  assert.equal(podSetKeyOf(otherVersion), undefined);
});

test('a PodSet without a UID controls nothing', () => {
  const ps = podSet({ uid: '' });
  assert.equal(isControlledBy(pod({ name: 'a', owner: '' }), ps), false);
});

test('controlledPods keeps order and drops foreign pods', () => {
  const pods = [pod({ name: 'a' }), pod({ name: 'x', owner: 'old' }), pod({ name: 'b' })];
  assert.deepEqual(
    controlledPods(podSet(), pods).map((p) => p.metadata?.name),
    ['a', 'b'],
  );
});

test('controllerRef and podSetKeyOf', () => {
  const p = pod({ name: 'a', namespace: 'team' });
  assert.equal(controllerRef(p)?.uid, UID);
  assert.equal(podSetKeyOf(p), 'team/web');
  assert.equal(podSetKeyOf(pod({ name: 'b', owner: null })), undefined);
  assert.equal(podSetKeyOf({}), undefined);
});
