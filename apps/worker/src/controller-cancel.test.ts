// A reconcile cancelled while its creates are in flight (its job's lock or Redis connection lost): the
// pods the API made are recorded as expected before the pass ends, so that no later reconcile plans them
// again from a projection (or a watch cache) that does not show them yet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '@podset/kube';
import { fakeController } from '../test/fake-controller.ts';
import { fakeKube } from '../test/fake-kube.ts';
import { apiState } from './api-state.ts';
import { CLEANUP_FINALIZER } from './controller.ts';
import type { StateSource } from './state-source.ts';

test('cancelled mid-create: the pods made are expected, no further batch is sent, the pass ends', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 7, { finalizers: [CLEANUP_FINALIZER] });
  const expected: string[] = [];
  const state: StateSource = {
    ...apiState(f.kube),
    created: async (_key, names) => {
      expected.push(...names);
    },
  };
  const cancel = new AbortController();
  const create = f.kube.pods.create.bind(f.kube.pods);
  let sent = 0;
  // The lock is lost while the first batch (1 pod) is on its way; its answer still comes.
  f.kube.pods.create = async (ns: string, pod: Pod, opts?: { signal?: AbortSignal }) => {
    sent++;
    cancel.abort(new Error('lock lost'));
    await new Promise((r) => setTimeout(r, 5));
    return create(ns, pod, opts);
  };
  const controller = fakeController(f, state);
  await assert.rejects(controller.syncHandler('default/web', { signal: cancel.signal }), /lock lost/);
  assert.equal(sent, 1, 'no batch after the cancel');
  assert.deepEqual(
    expected,
    [...f.pods.values()].map((p) => p.metadata.name),
  );
  assert.equal(expected.length, 1);
});
