import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evalJsonPath, humanDuration } from './table.ts';
import { compareVersions } from '../../registry/rest/resources.ts';

test('humanDuration matches Kubernetes', () => {
  const s = 1000;
  assert.equal(humanDuration(5 * s), '5s');
  assert.equal(humanDuration(119 * s), '119s');
  assert.equal(humanDuration(125 * s), '2m5s');
  assert.equal(humanDuration(10 * 60 * s), '10m');
  assert.equal(humanDuration(3 * 3600 * s + 5 * 60 * s), '3h5m');
  assert.equal(humanDuration(30 * 3600 * s), '30h');
  assert.equal(humanDuration(3 * 86400 * s + 2 * 3600 * s), '3d2h');
  assert.equal(humanDuration(100 * 86400 * s), '100d');
  assert.equal(humanDuration(-5 * s), '<invalid>');
});

test('printer-column JSONPath: fields, indexes, wildcards, filters', () => {
  const o = {
    spec: { replicas: 3 },
    status: {
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'Available', status: 'False' },
      ],
    },
  };
  assert.deepEqual(evalJsonPath(o, '.spec.replicas'), [3]);
  assert.deepEqual(evalJsonPath(o, '.status.conditions[1].type'), ['Available']);
  assert.deepEqual(evalJsonPath(o, '.status.conditions[*].type'), ['Ready', 'Available']);
  assert.deepEqual(evalJsonPath(o, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
  assert.deepEqual(evalJsonPath(o, '.spec.missing'), []);
});

test('version priority: GA, then beta, then alpha', () => {
  assert.deepEqual(['v1alpha1', 'v1beta2', 'v2', 'v1', 'v1beta1', 'foo'].sort(compareVersions), [
    'v2',
    'v1',
    'v1beta2',
    'v1beta1',
    'v1alpha1',
    'foo',
  ]);
});
