// Parking (park-check.ts, final-failure.ts): a key that failed for good waits out its backoff writing nothing,
// unless its spec changes or a new PodSet takes the name; the parked record is read beside the state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TerminalError } from '@podset/queue';
import * as planner from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { apiError, fakeKube } from '../test/fake-kube.ts';
import { createController, ReconcileError } from './controller.ts';
import { apiState } from './api-state.ts';
import { createEventRecorder } from './events.ts';
import { memoryParkStore, type ParkStore } from './park-store.ts';
import type { StateSource } from './state-source.ts';
import { FakeClock } from '@podset/testkit';

const log = silentLogger;

function failingSetup(parkedRetryMs = 300_000) {
  const f = fakeKube();
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const controller = createController({
    kube: f.kube,
    planner,
    events: createEventRecorder({ kube: f.kube, log, instance: 'test' }),
    log,
    clock,
    options: { createBurst: 4, parkedRetryMs, reconcile: { notReadyRequeueMs: 1000 } },
  });
  let n = 0;
  f.fault = (c) =>
    c.verb === 'create' && c.resource === 'pods'
      ? apiError(
          422,
          'Invalid',
          `Pod "web-${(++n).toString(36)}x" is invalid: metadata.labels: Invalid value: "bad key!"`,
        )
      : undefined;
  f.addPodSet('default', 'web', 3);
  const writes = (from = 0) =>
    f.calls.slice(from).filter((c) => c.verb !== 'get' && c.verb !== 'list' && c.resource !== 'events');
  return { f, controller, clock, writes };
}

test('a create the API keeps rejecting gives the same ReplicaFailure message every attempt: one status write', async () => {
  const { f, controller } = failingSetup();
  for (let attempt = 1; attempt <= 3; attempt++) {
    await assert.rejects(controller.syncHandler('default/web', { attempt }), (err: unknown) => {
      assert.ok(err instanceof ReconcileError, 'retried by the queue (not a TerminalError)');
      assert.equal(err.message, '1 of 3 pod creates rejected: 422 Invalid');
      return true;
    });
  }
  assert.equal(
    f.calls.filter((c) => c.resource === 'podsets/status').length,
    1,
    'written once, then unchanged',
  );
  const cond = f.podsets.get('default/web')!.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  assert.equal(cond?.message, '1 of 3 pod creates rejected: 422 Invalid');
  const warnings = f.events.filter((e) => e.reason === 'FailedCreate');
  assert.ok(warnings.length >= 1);
  assert.match(
    warnings[0]!.message ?? '',
    /bad key!/,
    "the API's message, with the pod name, is in the Event",
  );
});

test('a key that failed for good is parked: requests before its backoff ends write nothing', async () => {
  const { f, controller, clock, writes } = failingSetup(300_000);
  const err = await controller.syncHandler('default/web').catch((e: unknown) => e);
  assert.ok(err instanceof ReconcileError);
  const parked = await controller.onFinalFailure('default/web', err);
  assert.equal(parked.requeueAfterMs, 300_000, 'one more try after the backoff cap');
  assert.ok(f.events.some((e) => e.reason === 'ReconcileFailed'));

  // Resyncs and pod events meanwhile: a GET each, no create, no status write, no Event.
  const before = f.calls.length;
  const eventsBefore = f.events.length;
  await clock.advance(60_000);
  const waiting = await controller.syncHandler('default/web');
  assert.equal(waiting.requeueAfterMs, 240_000, 'due when the backoff ends, not before');
  await clock.advance(200_000);
  await controller.syncHandler('default/web');
  assert.deepEqual(writes(before), []);
  assert.deepEqual(
    f.calls.slice(before).map((c) => c.verb),
    ['get', 'get'],
  );
  assert.equal(f.events.length, eventsBefore);

  // The backoff over: one attempt; failing again is final at once (no fresh round of short retries).
  await clock.advance(40_001);
  await assert.rejects(controller.syncHandler('default/web'), (e: unknown) => {
    assert.ok(e instanceof TerminalError, 'terminal: the queue makes no further attempt');
    assert.ok(e.cause instanceof ReconcileError);
    assert.equal(e.cause.reason, 'FailedCreate');
    return true;
  });
  assert.equal(writes(before).filter((c) => c.verb === 'create' && c.resource === 'pods').length, 1);
});

test('a spec change (new generation) unparks a key at once and resets its backoff', async () => {
  const { f, controller, clock } = failingSetup(300_000);
  const err = await controller.syncHandler('default/web').catch((e: unknown) => e);
  await controller.onFinalFailure('default/web', err);
  await clock.advance(1_000);
  const ps = f.podsets.get('default/web')!;
  ps.metadata.generation = 2;
  f.bump(ps);
  const before = f.calls.length;
  await assert.rejects(controller.syncHandler('default/web'), (e: unknown) => {
    assert.ok(
      e instanceof ReconcileError,
      'a fresh start, not a TerminalError: the queue retries it with its short backoff',
    );
    return true;
  });
  assert.equal(
    f.calls.slice(before).filter((c) => c.verb === 'create' && c.resource === 'pods').length,
    1,
    'tried at once',
  );

  // Fixed: the next pass creates the pods and clears the parking for good.
  f.fault = undefined;
  await controller.syncHandler('default/web');
  assert.equal(f.pods.size, 3);
  await clock.advance(1_000);
  f.pods.clear();
  await controller.syncHandler('default/web');
  assert.equal(f.pods.size, 3, 'not parked any more');
});

test('a PodSet deleted while parked and created again under the same name starts afresh', async () => {
  const { f, controller, clock } = failingSetup(300_000);
  const err = await controller.syncHandler('default/web').catch((e: unknown) => e);
  await controller.onFinalFailure('default/web', err);
  await clock.advance(1_000);
  // A namesake: same key, same generation (1), another uid.
  const ps = f.podsets.get('default/web')!;
  ps.metadata.uid = 'a-new-podset-uid';
  f.bump(ps);
  f.fault = undefined;
  const before = f.calls.length;
  await controller.syncHandler('default/web');
  assert.equal(
    f.calls.slice(before).filter((c) => c.verb === 'create' && c.resource === 'pods').length,
    3,
    "not parked: the old one's backoff is not the new one's",
  );
});

/** A state source that notes, when each read begins, how many parked-record reads had begun. */
function countingSetup(park: ParkStore) {
  const f = fakeKube();
  const api = apiState(f.kube);
  const seenAtRead: number[] = [];
  let parkReads = 0;
  const parkStore: ParkStore = {
    ...park,
    get: (key) => {
      parkReads++;
      return park.get(key);
    },
  };
  const state: StateSource = {
    ...api,
    read: (ref, signal) => {
      seenAtRead.push(parkReads);
      return api.read(ref, signal);
    },
  };
  const controller = createController({
    kube: f.kube,
    planner,
    events: createEventRecorder({ kube: f.kube, log, instance: 'test' }),
    log,
    state,
    parkStore,
    options: { createBurst: 4, reconcile: { notReadyRequeueMs: 1000 } },
  });
  return { f, controller, seenAtRead, parkReads: () => parkReads };
}

test('the parked record is asked for beside the state read (one Redis round trip), once per reconcile', async () => {
  const { f, controller, seenAtRead, parkReads } = countingSetup(memoryParkStore());
  f.addPodSet('default', 'web', 3);
  await controller.syncHandler('default/web');
  assert.deepEqual(seenAtRead, [1], 'already asked when the state read began, not after it');
  assert.equal(parkReads(), 1);
});

test('a parked-record read that fails is not waited for when the PodSet is gone', async () => {
  const failing: ParkStore = {
    ...memoryParkStore(),
    get: () => Promise.reject(new Error('redis down')),
  };
  const { controller } = countingSetup(failing);
  assert.deepEqual(await controller.syncHandler('default/nope'), {}, 'done, no unhandled rejection');
});

test('a parked-record read that fails still fails a reconcile that needs it', async () => {
  const failing: ParkStore = {
    ...memoryParkStore(),
    get: () => Promise.reject(new Error('redis down')),
  };
  const { f, controller } = countingSetup(failing);
  f.addPodSet('default', 'web', 3);
  await assert.rejects(controller.syncHandler('default/web'), /redis down/);
  assert.equal(f.pods.size, 0, 'nothing created without knowing whether the key is parked');
});
