import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matches, parseFilter, stateOf, type OverviewFilter } from './filter.ts';
import { stateHtml } from './html.ts';
import type { PodSetRow } from './overview.ts';

function row(namespace: string, name: string, extra: Partial<PodSetRow> = {}): PodSetRow {
  return {
    namespace,
    name,
    key: `${namespace}/${name}`,
    desired: 2,
    current: 2,
    ready: 2,
    updated: 2,
    available: 2,
    conditions: [],
    events: [],
    ...extra,
  };
}

const rows = [
  row('default', 'web'),
  row('default', 'api', { ready: 1 }),
  row('shop', 'web-2', { rollout: 'rolling', updated: 1 }),
  row('shop', 'cart', { lastReconcile: { jobId: 'j', result: 'retry', at: 1, attempt: 2 } }),
  // Parked after failing for good: its later requests complete (they only wait out the backoff), and
  // the worker's ReplicaFailure condition is what still says it fails.
  row('shop', 'bad', {
    current: 0,
    ready: 0,
    conditions: [
      { type: 'Progressing', status: 'True', reason: 'ScalingUp' },
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: '1 of 2 pod creates rejected',
      },
    ],
    lastReconcile: { jobId: 'k', result: 'completed', at: 2, attempt: 1, requeueAfterMs: 300_000 },
  }),
  row('shop', 'healed', { conditions: [{ type: 'ReplicaFailure', status: 'False', reason: 'Fixed' }] }),
];

function shown(params: Record<string, string>): string[] {
  const parsed = parseFilter(params);
  assert.ok('filter' in parsed, JSON.stringify(parsed));
  return rows.filter((r) => matches(r, parsed.filter)).map((r) => r.key);
}

test('stateOf: converged, progressing, rolling out, failing (which wins over the others)', () => {
  assert.deepEqual(rows.map(stateOf), [
    'converged',
    'progressing',
    'rolling-out',
    'failing',
    'failing',
    'converged',
  ]);
  const failingRollout = row('a', 'b', {
    rollout: 'rolling',
    conditions: [{ type: 'ReplicaFailure', status: 'True' }],
  });
  assert.equal(stateOf(failingRollout), 'failing');
  assert.equal(stateOf(row('a', 'b', { generation: 3, observedGeneration: 2 })), 'progressing');
});

test('stateOf: a rollout or scale-up past its progress deadline is failing, not still rolling out', () => {
  const stalled = (status: string, reason: string) =>
    row('a', 'b', {
      rollout: 'stalled at 1 of 2',
      updated: 1,
      available: 1,
      conditions: [{ type: 'Progressing', status, reason, message: 'PodSet "b" has timed out progressing.' }],
    });
  assert.equal(stateOf(stalled('False', 'ProgressDeadlineExceeded')), 'failing');
  assert.equal(stateOf(stalled('True', 'RollingOut')), 'rolling-out');
  assert.equal(
    stateOf(
      row('a', 'b', {
        ready: 1,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
      }),
    ),
    'failing',
    'a stalled scale-up',
  );
  assert.match(
    stateHtml(stalled('False', 'ProgressDeadlineExceeded')),
    /data-state="failing" title="ProgressDeadlineExceeded: PodSet &quot;b&quot; has timed out progressing.">failing</,
  );
});

test('the filter: words over namespace/name and status, an exact namespace, a status', () => {
  assert.deepEqual(
    shown({}),
    rows.map((r) => r.key),
  );
  assert.deepEqual(shown({ q: 'web' }), ['default/web', 'shop/web-2']);
  assert.deepEqual(shown({ q: 'WEB  default' }), ['default/web'], 'every word, any case');
  assert.deepEqual(shown({ q: 'default/a' }), ['default/api']);
  assert.deepEqual(shown({ q: 'progressing' }), ['default/api']);
  assert.deepEqual(shown({ namespace: 'shop' }), ['shop/web-2', 'shop/cart', 'shop/bad', 'shop/healed']);
  assert.deepEqual(shown({ status: 'rolling-out' }), ['shop/web-2']);
  assert.deepEqual(shown({ status: 'failing' }), ['shop/cart', 'shop/bad']);
  assert.deepEqual(shown({ status: 'progressing' }), ['default/api'], 'a failing PodSet is not progressing');
  assert.deepEqual(shown({ q: 'bad failing' }), ['shop/bad']);
  assert.deepEqual(shown({ status: 'converged', namespace: 'default' }), ['default/web']);
  assert.deepEqual(shown({ q: 'nothing-like-it' }), []);
});

test('the filter refuses what it does not know', () => {
  const problem = (p: Record<string, string>) => {
    const r = parseFilter(p);
    return 'problem' in r ? r.problem : undefined;
  };
  assert.match(problem({ status: 'sad' }) ?? '', /^status: one of converged/);
  assert.match(problem({ namespace: 'Not_A_Namespace' }) ?? '', /^namespace/);
  assert.match(problem({ q: 'x'.repeat(201) }) ?? '', /^q: at most 200/);
  const ok = parseFilter({ q: '  web ', namespace: 'default', status: '' });
  assert.deepEqual(ok, { filter: { q: 'web', namespace: 'default', status: '' } satisfies OverviewFilter });
});
