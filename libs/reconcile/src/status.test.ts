import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod } from '../test/fixtures.ts';
import { observedStatus, podSetSelector, statusEqual } from './status.ts';
import type { PodSetStatus } from './types.ts';

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

/** statusEqual's definition, spelled out: the JSON of both with object keys sorted. */
function sortedJson(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (x instanceof Date) return x.toISOString();
    if (typeof x !== 'object' || x === null) return x;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(x).sort()) out[k] = sort((x as Record<string, unknown>)[k]);
    return out;
  };
  return JSON.stringify(sort(v ?? {}));
}

test('statusEqual answers as comparing the sorted JSON of both would, case by case', () => {
  const t = '2026-01-02T03:04:05.000Z';
  const cond = (o: Record<string, unknown>) => ({ type: 'Available', status: 'True', ...o });
  const values: unknown[] = [
    undefined,
    {},
    { replicas: 0 },
    { replicas: 1 },
    { replicas: 1, readyReplicas: undefined },
    { readyReplicas: undefined },
    { replicas: null },
    { replicas: Number.NaN },
    { replicas: '1' },
    { podNames: [] },
    { podNames: ['a'] },
    { podNames: ['a', 'b'] },
    { podNames: ['b', 'a'] },
    { podNames: [undefined] },
    { podNames: [null] },
    { podNames: {} },
    { conditions: [cond({ lastTransitionTime: t })] },
    { conditions: [cond({ lastTransitionTime: new Date(t) })] },
    { conditions: [cond({ lastTransitionTime: t, reason: undefined })] },
    { conditions: [cond({ lastTransitionTime: t, reason: 'x' })] },
    { conditions: [{ status: 'True', type: 'Available', lastTransitionTime: t }] },
    { conditions: [cond({}), cond({ type: 'Progressing' })] },
    { conditions: [cond({ type: 'Progressing' }), cond({})] },
  ];
  for (const a of values) {
    for (const b of values) {
      assert.equal(
        statusEqual(a as PodSetStatus, b as PodSetStatus),
        sortedJson(a) === sortedJson(b),
        `${sortedJson(a)} vs ${sortedJson(b)}`,
      );
    }
  }
});
