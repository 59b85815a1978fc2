import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod } from '../test/fixtures.ts';
import { observedStatus, podSetSelector, statusEqual } from './status.ts';

test('observed status counts active pods, ready ones, sorts names', () => {
  const s = observedStatus({
    name: 'web',
    generation: 4,
    templateHash: 'abc',
    activePods: [pod({ name: 'web-b' }), pod({ name: 'web-a', ready: false })],
    updated: 1,
    available: 1,
  });
  assert.deepEqual(s, {
    replicas: 2,
    readyReplicas: 1,
    updatedReplicas: 1,
    availableReplicas: 1,
    podNames: ['web-a', 'web-b'],
    observedGeneration: 4,
    templateHash: 'abc',
    selector: 'podset.io/name=web',
  });
  assert.equal(podSetSelector('x'), 'podset.io/name=x');
});

test('statusEqual: JSON equality, key order and undefined keys ignored, array order matters', () => {
  assert.equal(statusEqual(undefined, {}), true);
  assert.equal(statusEqual({ replicas: 1, selector: 'a' }, { selector: 'a', replicas: 1 }), true);
  assert.equal(statusEqual({ replicas: 1, readyReplicas: undefined }, { replicas: 1 }), true);
  assert.equal(statusEqual({ replicas: 1 }, { replicas: 2 }), false);
  assert.equal(statusEqual({ podNames: ['a', 'b'] }, { podNames: ['b', 'a'] }), false);
  assert.equal(
    statusEqual(
      { conditions: [{ type: 'Available', status: 'True', reason: 'x' }] },
      { conditions: [{ type: 'Available', status: 'True', reason: 'y' }] },
    ),
    false,
  );
  assert.equal(statusEqual({ replicas: 0 }, {}), false);
});
