// A pass's creates against its expectations: reserved before the first batch (noted quiet while the pass
// may yet be), named in the pass's last record unless a batch would leave more than the burst unnamed or
// the units' hold is half gone, each record releasing what its names and the creates not made leave over,
// and a pass noted quiet that turns out not to be asking for the next pass itself (its pods' events may have
// requested none).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodSet } from '@podset/kube';
import { silentLogger } from '@podset/log';
import type { Plan } from '@podset/reconcile';
import { fakeKube } from '../test/fake-kube.ts';
import { apiState } from './api-state.ts';
import { createPods, RENEW_UNITS_AFTER_MS } from './pod-writes.ts';
import { podSetRef, type StateSource } from './state-source.ts';

const creates = (n: number): string[] => Array.from({ length: n }, () => 'create');

function setUp(batches: number[], opts: { creates?: number; burst?: number; msPerCreate?: number } = {}) {
  const f = fakeKube();
  let now = 1_000_000;
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
  const plan = { creates: Array.from({ length: opts.creates ?? 3 }, () => manifest) } as unknown as Plan;
  // The creates go into the same list, so the order says the reservation comes before any of them.
  const create = f.kube.pods.create.bind(f.kube.pods);
  f.kube.pods.create = (...args) => {
    calls.push('create');
    now += opts.msPerCreate ?? 0;
    return create(...args);
  };
  const deps = {
    kube: f.kube,
    state,
    events: { record: async () => {} },
    slowStartBatches: () => batches,
    createBurst: opts.burst ?? 64,
    deleteConcurrency: 1,
    inBatch: undefined,
    now: () => now,
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

test('slow-start batches within the burst: the units stand for the pods made, one record names them all', async () => {
  const { pass, podset, plan, deps, calls } = setUp([1, 2, 4, 3], { creates: 10 });
  const out = await createPods(pass, podset, plan, deps, () => true);
  assert.deepEqual(calls, ['reserve 10 quiet', ...creates(10), 'record 10 keep unmade 0']);
  assert.equal(out.done.length, 10);
});

test('a batch that would leave more than the burst unnamed: the pods made so far are named before it', async () => {
  // Burst 4: after 1 and 2 made, the next 4 would make 7 unnamed; after those, the pass ends.
  const { pass, podset, plan, deps, calls } = setUp([1, 2, 4], { creates: 7, burst: 4 });
  await createPods(pass, podset, plan, deps, () => true);
  assert.deepEqual(calls, [
    'reserve 7 quiet',
    ...creates(3),
    'record 3 keep unmade 0',
    ...creates(4),
    'record 4 keep unmade 0',
  ]);
});

test("a slow API: the pods made are named once the units' hold is half gone, which renews it", async () => {
  const { pass, podset, plan, deps, calls } = setUp([1, 1, 1], { msPerCreate: RENEW_UNITS_AFTER_MS - 1 });
  await createPods(pass, podset, plan, deps);
  assert.deepEqual(calls, [
    'reserve 3',
    'create',
    'create',
    // Two creates since the reservation: the hold is half gone.
    'record 2 - unmade 0',
    'create',
    'record 1 - unmade 0',
  ]);
});

test('batches that leave creates to the next pass: those are released by the last record', async () => {
  const { pass, podset, plan, deps, calls } = setUp([1, 1]);
  const out = await createPods(pass, podset, plan, deps);
  assert.deepEqual(calls, ['reserve 3', 'create', 'create', 'record 2 - unmade 1']);
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

test('creates that throw part-way: the error path names the pods made and releases the other units', async () => {
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
  assert.deepEqual(calls, ['reserve 3 quiet', 'create', 'record 1 - unmade 2']);
});
