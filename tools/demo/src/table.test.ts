import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConverged, renderTable, toRow } from './table.ts';

test('a PodSet is converged only when the status describes the current generation and all are ready', () => {
  const base = {
    metadata: { name: 'web', namespace: 'default', generation: 2 },
    spec: { replicas: 3 },
    status: { replicas: 3, readyReplicas: 3, observedGeneration: 2 },
  };
  assert.equal(isConverged(toRow(base)), true);
  assert.equal(isConverged(toRow({ ...base, status: { ...base.status, observedGeneration: 1 } })), false);
  assert.equal(isConverged(toRow({ ...base, status: { ...base.status, readyReplicas: 2 } })), false);
  assert.equal(isConverged(toRow({ ...base, spec: { replicas: 4 } })), false);
  // A PodSet never reconciled has no status; replicas defaults to 1 as the CRD does.
  assert.equal(isConverged(toRow({ metadata: { name: 'x', namespace: 'd', generation: 1 } })), false);
});

test('the table has aligned columns, sorted by namespace/name', () => {
  const text = renderTable([
    toRow({ metadata: { name: 'web', namespace: 'default', generation: 1 }, spec: { replicas: 3 } }),
    toRow({
      metadata: { name: 'batch', namespace: 'default', generation: 1 },
      spec: { replicas: 0 },
      status: { replicas: 0, readyReplicas: 0, observedGeneration: 1 },
    }),
  ]);
  const lines = text.split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0] ?? '', /^NAMESPACE\s+NAME\s+DESIRED\s+CURRENT\s+READY\s+STATE$/);
  assert.match(lines[1] ?? '', /^default\s+batch\s+0\s+0\s+0\s+converged$/);
  assert.match(lines[2] ?? '', /^default\s+web\s+3\s+0\s+0\s+reconciling$/);
  assert.equal(lines[1]?.indexOf('batch'), lines[0]?.search(/\bNAME\b/));
});

test('a PodSet whose reconciles fail (ReplicaFailure True) shows failing, not reconciling', () => {
  const bad = {
    metadata: { name: 'bad', namespace: 'default', generation: 1 },
    spec: { replicas: 2 },
    status: {
      replicas: 0,
      readyReplicas: 0,
      observedGeneration: 1,
      conditions: [
        { type: 'Progressing', status: 'True' },
        { type: 'ReplicaFailure', status: 'True' },
      ],
    },
  };
  assert.match(renderTable([toRow(bad)]).split('\n')[1] ?? '', /^default\s+bad\s+2\s+0\s+0\s+failing$/);
  const healed = {
    ...bad,
    status: { ...bad.status, conditions: [{ type: 'ReplicaFailure', status: 'False' }] },
  };
  assert.match(renderTable([toRow(healed)]).split('\n')[1] ?? '', /reconciling$/);
});

test('a PodSet past its progress deadline shows failing, not reconciling for ever', () => {
  const stalled = {
    metadata: { name: 'stuck', namespace: 'default', generation: 2 },
    spec: { replicas: 3 },
    status: {
      replicas: 3,
      readyReplicas: 1,
      observedGeneration: 2,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
    },
  };
  assert.match(renderTable([toRow(stalled)]).split('\n')[1] ?? '', /^default\s+stuck\s+3\s+3\s+1\s+failing$/);
  const underWay = {
    ...stalled,
    status: {
      ...stalled.status,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'RollingOut' }],
    },
  };
  assert.match(renderTable([toRow(underWay)]).split('\n')[1] ?? '', /reconciling$/);
});
