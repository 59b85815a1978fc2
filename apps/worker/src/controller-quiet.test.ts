// A pass's creates are recorded quiet (their watch events then request no pass) only when the pass after
// them would do nothing: reserved before the first batch and noted quiet while the pass may yet be, the
// pods named by the pass's last record (or earlier, past the burst), which decides. A capped scale-up or a failed create is not quiet, and a pass whose earlier
// batches were noted asks for the next pass itself. The finalizer's patch is told before it is sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '@podset/kube';
import type { QuietNote } from '@podset/state';
import { fakeController } from '../test/fake-controller.ts';
import { fakeKube, type FakeKube } from '../test/fake-kube.ts';
import { apiState } from './api-state.ts';
import { CLEANUP_FINALIZER } from './controller.ts';
import type { StateSource } from './state-source.ts';

type Record =
  | { reserve: number; quiet: boolean }
  | { names: number; quiet: QuietNote | undefined; unmade: number | undefined };

function recording(f: FakeKube) {
  const records: Record[] = [];
  const told: string[] = [];
  const state: StateSource = {
    ...apiState(f.kube),
    creating: async (_key, count, quiet) => {
      records.push({ reserve: count, quiet });
    },
    created: async (_key, names, quiet, release) => {
      records.push({ names: names.length, quiet, unmade: release?.unmade });
    },
    writingInputs: async (_key, metadata) => {
      // Told before the patch is sent: the API does not have the finalizer yet.
      const stored = f.podsets.get('default/web')?.metadata.finalizers ?? [];
      told.push(`${(metadata.finalizers ?? []).join(',')} (stored: ${stored.join(',')})`);
    },
  };
  return { records, told, state };
}

function controller(f: FakeKube, state: StateSource, maxCreatesPerPass?: number) {
  return fakeController(f, state, undefined, maxCreatesPerPass !== undefined ? { maxCreatesPerPass } : {});
}

test('a scale-up in three batches: all reserved first, noted quiet; one record keeps the note and names them all', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 7, { finalizers: [CLEANUP_FINALIZER] });
  const { records, state } = recording(f);
  const result = await controller(f, state).syncHandler('default/web');
  assert.deepEqual(records, [
    { reserve: 7, quiet: true },
    { names: 7, quiet: 'keep', unmade: 0 },
  ]);
  assert.deepEqual(result, { requeueAfterMs: 1000, reason: 'PodsNotReady' });
});

test('a new PodSet: its finalizer patch is told before it is sent, then its creates are quiet', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 1);
  const { records, told, state } = recording(f);
  await controller(f, state).syncHandler('default/web');
  assert.deepEqual(told, [`${CLEANUP_FINALIZER} (stored: )`]);
  assert.deepEqual(records, [
    { reserve: 1, quiet: true },
    { names: 1, quiet: 'keep', unmade: 0 },
  ]);
});

test('a capped scale-up is not quiet: its last record drops the note, and the pass asks for the next', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 7, { finalizers: [CLEANUP_FINALIZER] });
  const { records, state } = recording(f);
  const result = await controller(f, state, 5).syncHandler('default/web');
  assert.deepEqual(records, [
    { reserve: 5, quiet: true },
    { names: 5, quiet: undefined, unmade: 0 },
  ]);
  assert.deepEqual(result, { requeueAfterMs: 0, reason: 'MoreWork' });
});

test('a failed create is not quiet: the last record drops the note and the pass fails (the queue retries)', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 7, { finalizers: [CLEANUP_FINALIZER] });
  const { records, state } = recording(f);
  const create = f.kube.pods.create.bind(f.kube.pods);
  let sent = 0;
  f.kube.pods.create = async (ns: string, pod: Pod, opts?: { signal?: AbortSignal }) => {
    if (++sent === 3) throw new Error('admission webhook said no');
    return create(ns, pod, opts);
  };
  await assert.rejects(controller(f, state).syncHandler('default/web'), /FailedCreate|webhook|pod creates/i);
  assert.deepEqual(records, [
    { reserve: 7, quiet: true },
    // The first batch's pod and the second's one made; its failed create and the four never sent released.
    { names: 2, quiet: undefined, unmade: 5 },
  ]);
});

test('a pass that also deletes is never quiet', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 2, { finalizers: [CLEANUP_FINALIZER] });
  const { records, state } = recording(f);
  const c = controller(f, state);
  await c.syncHandler('default/web');
  assert.deepEqual(records, [
    { reserve: 2, quiet: true },
    { names: 2, quiet: 'keep', unmade: 0 },
  ]);
  // A rollout: the template changes, so the next pass creates new pods and deletes old ones.
  const ps = f.podsets.get('default/web')!;
  ps.spec!.template!.spec!.containers[0]!.image = 'busybox:2';
  ps.metadata.generation = 2;
  f.bump(ps);
  records.length = 0;
  for (let i = 0; i < 4 && records.length === 0; i++) await c.syncHandler('default/web');
  assert.ok(records.length > 0, 'the rollout created');
  assert.ok(
    records.every((r) => r.quiet === undefined || r.quiet === false),
    JSON.stringify(records),
  );
});

test('a one-batch pass noted quiet at its reservation, then not quiet: it asks for the next pass itself', async () => {
  // Its pods' events may have met the reserved units while the note stood, and requested nothing.
  const f = fakeKube();
  f.addPodSet('default', 'web', 7, { finalizers: [CLEANUP_FINALIZER] });
  const { records, state } = recording(f);
  const result = await controller(f, state, 1).syncHandler('default/web');
  assert.deepEqual(records, [
    { reserve: 1, quiet: true },
    { names: 1, quiet: undefined, unmade: 0 },
  ]);
  assert.deepEqual(result, { requeueAfterMs: 0, reason: 'MoreWork' });
});

test('a record that fails mid-pass (Redis away): the error path names the pods made, releases the other units, and the pass fails', async () => {
  // 20 pods at a burst of 8: after batches of 1, 2 and 4, the next 8 would leave 15 unnamed, so the 7 made
  // are recorded first.
  const f = fakeKube();
  f.addPodSet('default', 'web', 20, { finalizers: [CLEANUP_FINALIZER] });
  const { records, state } = recording(f);
  const created = state.created.bind(state);
  let calls = 0;
  state.created = async (...args) => {
    if (++calls === 1) throw new Error('redis away');
    await created(...args);
  };
  await assert.rejects(controller(f, state).syncHandler('default/web'), /redis away/);
  assert.deepEqual(records, [
    { reserve: 20, quiet: true },
    { names: 7, quiet: undefined, unmade: 13 },
  ]);
  assert.equal(f.pods.size, 7, 'no batch after the failed record');
});
