// A pass's creates against its expectations: reserved before the first batch (noted quiet while the pass
// may yet be), each record releasing what its names and the creates not made leave over, and a pass noted
// quiet that turns out not to be asking for the next pass itself (its pods' events may have requested none).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodSet } from '@podset/kube';
import { silentLogger } from '@podset/log';
import type { Plan } from '@podset/reconcile';
import { fakeKube } from '../test/fake-kube.ts';
import { apiState } from './api-state.ts';
import { createPods } from './pod-writes.ts';
import { podSetRef, type StateSource } from './state-source.ts';

const creates = (n: number): string[] => Array.from({ length: n }, () => 'create');

function setUp(batches: number[]) {
  const f = fakeKube();
  const podset = f.addPodSet('default', 'web', 3) as unknown as PodSet;
  const calls: string[] = [];
  const state: StateSource = {
    ...apiState(f.kube),
    creating: async (_key, count, quiet) => {
      calls.push(`reserve ${count}${quiet ? ' quiet' : ''}`);
    },
    created: async (_key, names, quiet, release) => {
      calls.push(`record ${names.length} ${quiet ?? '-'} unmade ${release?.unmade ?? '-'}`);
    },
  };
  const manifest = {
    metadata: { namespace: 'default', generateName: 'web-' },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  };
  const plan = { creates: [manifest, manifest, manifest] } as unknown as Plan;
  // The creates go into the same list, so the order says the reservation comes before any of them.
  const create = f.kube.pods.create.bind(f.kube.pods);
  f.kube.pods.create = (...args) => {
    calls.push('create');
    return create(...args);
  };
  const deps = {
    kube: f.kube,
    state,
    events: { record: async () => {} },
    slowStartBatches: () => batches,
    createBurst: 64,
    deleteConcurrency: 1,
    inBatch: undefined,
  };
  const pass = { ref: podSetRef('default/web'), log: silentLogger, signal: undefined, span: undefined };
  return { pass, podset, plan, deps, calls };
}

test('one batch, noted quiet at its reservation, not quiet after all: withdrawn, the note dropped', async () => {
  const { pass, podset, plan, deps, calls } = setUp([3]);
  const out = await createPods(pass, podset, plan, deps, () => false);
  assert.deepEqual(calls, ['reserve 3 quiet', ...creates(3), 'record 3 - unmade 0']);
  assert.equal(out.withdrawn, true);
});

test('one batch, quiet: one reservation and one record (no round trip of its own for the release)', async () => {
  const { pass, podset, plan, deps, calls } = setUp([3]);
  const out = await createPods(pass, podset, plan, deps, () => true);
  assert.deepEqual(calls, ['reserve 3 quiet', ...creates(3), 'record 3 keep unmade 0']);
  assert.equal(out.withdrawn, undefined);
});

test('batches that leave creates to the next pass: those are released by a last record of no names', async () => {
  const { pass, podset, plan, deps, calls } = setUp([1, 1]);
  const out = await createPods(pass, podset, plan, deps);
  assert.deepEqual(calls, [
    'reserve 3',
    'create',
    'record 1 - unmade 0',
    'create',
    'record 1 - unmade 0',
    'record 0 - unmade 1',
  ]);
  assert.equal(out.done.length, 2);
});

test('quiet, but a record found a unit taken by a pod not of this pass: withdrawn (its events may all be in)', async () => {
  const { pass, podset, plan, deps, calls } = setUp([3]);
  const created = deps.state.created.bind(deps.state);
  deps.state.created = async (...args) => {
    await created(...args);
    return { overReleased: true };
  };
  const out = await createPods(pass, podset, plan, deps, () => true);
  assert.deepEqual(calls, ['reserve 3 quiet', ...creates(3), 'record 3 keep unmade 0']);
  assert.equal(out.withdrawn, true);
});

test('creates that throw part-way: the error path releases the units of the creates never recorded', async () => {
  const { pass, podset, plan, deps, calls } = setUp([1, 2]);
  let batch = 0;
  const failing = {
    ...deps,
    inBatch: <T>(_what: string, _n: number, run: () => Promise<T>): Promise<T> => {
      if (++batch === 2) return Promise.reject(new Error('runner gone'));
      return run();
    },
  };
  await assert.rejects(
    createPods(pass, podset, plan, failing, () => true),
    /runner gone/,
  );
  assert.deepEqual(calls, ['reserve 3 quiet', 'create', 'record 1 keep unmade 0', 'record 0 - unmade 2']);
});
