// The bench's audit arithmetic (bench/lib/figures.ts): where a run's API writes went, per PodSet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writesPer } from '../../bench/lib/figures.ts';

test('writes per PodSet by kind: writes only, most first, two decimals', () => {
  const audit = {
    'create pods': 3000,
    'get podsets': 300,
    'list pods': 300,
    'update podsets/status': 971,
    'patch podsets': 300,
    'create controllerrevisions': 300,
    'create events': 300,
  };
  assert.equal(
    writesPer(audit, 300),
    'create pods 10.00, update podsets/status 3.24, create controllerrevisions 1.00, create events 1.00, patch podsets 1.00',
  );
  assert.equal(writesPer({ 'get podsets': 5 }, 5), '');
});
