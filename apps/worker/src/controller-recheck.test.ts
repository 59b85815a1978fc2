// A read that leaned on something to be checked again (the projection's source planning from our own
// write the projection does not show yet) makes the reconcile look again by then, whatever its plan says:
// a converged PodSet whose status write was undone (an etcd restore) is otherwise never written again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as planner from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { fakeKube, makeAllReady } from '../test/fake-kube.ts';
import { apiState } from './api-state.ts';
import { CLEANUP_FINALIZER, createController } from './controller.ts';
import { createEventRecorder } from './events.ts';
import type { KeyState, StateSource } from './state-source.ts';

const log = silentLogger;

/** A converged PodSet in the fake API, and a controller whose reads carry `recheckAfterMs`. */
async function setup(recheckAfterMs: number | undefined) {
  const f = fakeKube();
  const api = apiState(f.kube);
  const options = { createBurst: 8, reconcile: { notReadyRequeueMs: 1000 } };
  const deps = { kube: f.kube, planner, log, options };
  const events = createEventRecorder({ kube: f.kube, log, instance: 'test', types: 'warnings' });
  f.addPodSet('default', 'web', 2, { finalizers: [CLEANUP_FINALIZER] });
  const fromApi = createController({ ...deps, events, state: api });
  await fromApi.syncHandler('default/web'); // creates
  makeAllReady(f);
  await fromApi.syncHandler('default/web'); // status
  const state: StateSource = {
    ...api,
    read: async (ref, signal): Promise<KeyState> => {
      const s = await api.read(ref, signal);
      if (s.kind !== 'found') return s;
      return { ...s, ...(recheckAfterMs !== undefined ? { recheckAfterMs } : {}) };
    },
  };
  return { f, controller: createController({ ...deps, events, state }) };
}

test('a converged key whose read asks for a recheck looks again then', async () => {
  const { controller } = await setup(4_000);
  assert.deepEqual(await controller.syncHandler('default/web'), {
    requeueAfterMs: 4_000,
    reason: 'OwnWriteNotShown',
  });
});

test('without a recheck asked, a converged key is not looked at again (no self wake-up)', async () => {
  const { controller } = await setup(undefined);
  assert.deepEqual(await controller.syncHandler('default/web'), {});
});

test("the plan's own look again wins when it is sooner", async () => {
  const { f, controller } = await setup(4_000);
  // One pod not ready: the plan looks again after notReadyRequeueMs (1 s).
  const pod = [...f.pods.values()][0]!;
  pod.status = { ...pod.status, conditions: [{ type: 'Ready', status: 'False' }] };
  const result = await controller.syncHandler('default/web');
  assert.equal(result.requeueAfterMs, 1_000);
  assert.notEqual(result.reason, 'OwnWriteNotShown');
});
