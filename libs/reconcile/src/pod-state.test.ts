import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod } from '../test/fixtures.ts';
import { isPodReady, isPodScheduled, podLifecycle } from './pod-state.ts';

test('lifecycle: terminating wins, then finished, else active', () => {
  assert.equal(podLifecycle(pod({ name: 'a' })), 'active');
  assert.equal(podLifecycle(pod({ name: 'a', phase: 'Pending' })), 'active');
  assert.equal(podLifecycle(pod({ name: 'a', phase: 'Unknown' })), 'active');
  assert.equal(podLifecycle({ metadata: { name: 'new' } }), 'active');
  assert.equal(podLifecycle(pod({ name: 'a', phase: 'Succeeded' })), 'finished');
  assert.equal(podLifecycle(pod({ name: 'a', phase: 'Failed' })), 'finished');
  assert.equal(podLifecycle(pod({ name: 'a', deleting: true })), 'terminating');
  assert.equal(podLifecycle(pod({ name: 'a', phase: 'Failed', deleting: true })), 'terminating');
  assert.equal(podLifecycle({ metadata: { deletionTimestamp: new Date() } }), 'terminating');
});

test('ready means a Ready condition with status True', () => {
  assert.equal(isPodReady(pod({ name: 'a' })), true);
  assert.equal(isPodReady(pod({ name: 'a', ready: false })), false);
  assert.equal(isPodReady({}), false);
  assert.equal(isPodReady({ status: { conditions: [{ type: 'PodScheduled', status: 'True' }] } }), false);
});

test('scheduled means a non-empty nodeName', () => {
  assert.equal(isPodScheduled(pod({ name: 'a', node: 'n1' })), true);
  assert.equal(isPodScheduled(pod({ name: 'a' })), false);
  assert.equal(isPodScheduled({ spec: { nodeName: '' } }), false);
});
