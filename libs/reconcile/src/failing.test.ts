import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failingCondition } from './failing.ts';

test('failingCondition: ReplicaFailure True first, then a progress deadline passed; nothing else', () => {
  const failure = { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' };
  const stalled = { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' };
  assert.equal(failingCondition([stalled, failure]), failure);
  assert.equal(failingCondition([stalled]), stalled);
  assert.equal(failingCondition([{ type: 'ReplicaFailure', status: 'False', reason: 'Fixed' }]), undefined);
  assert.equal(failingCondition([{ type: 'Progressing', status: 'True', reason: 'RollingOut' }]), undefined);
  assert.equal(failingCondition([{ type: 'Progressing', status: 'False', reason: 'Paused' }]), undefined);
  assert.equal(failingCondition(undefined), undefined);
});
