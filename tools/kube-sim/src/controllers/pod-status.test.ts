import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject, KubeObject } from '../apimachinery/types.ts';
import {
  crashLoopBackoffMs,
  crashLoopStatus,
  goDuration,
  pendingStatus,
  restartsOnFailure,
  startedStatus,
  succeededStatus,
  unschedulableStatus,
} from './pod-status.ts';

const pod = (status?: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u-1' },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      initContainers: [{ name: 'init', image: 'busybox' }],
    },
    ...(status !== undefined ? { status } : {}),
  }) as unknown as KubeObject;

const condition = (status: Record<string, unknown>, type: string) =>
  (status.conditions as { type: string; status: string; reason?: string }[]).find((c) => c.type === type);

test('unschedulable: Pending with PodScheduled=False, and nothing to write when it already says so', () => {
  const first = unschedulableStatus(pod(), 0, '2026-01-01T00:00:00Z');
  assert.ok(first);
  assert.equal(first.phase, 'Pending');
  assert.equal(condition(first, 'PodScheduled')?.reason, 'Unschedulable');
  assert.equal(unschedulableStatus(pod(first), 0, '2026-01-01T00:00:09Z'), undefined);
});

test('pending: containers waiting in ContainerCreating on the node, image normalized', () => {
  const s = pendingStatus(pod(), '10.0.0.7', '2026-01-01T00:00:00Z');
  assert.equal(s.phase, 'Pending');
  assert.equal(s.hostIP, '10.0.0.7');
  const [c] = s.containerStatuses as { image: string; state: { waiting: { reason: string } } }[];
  assert.equal(c?.image, 'docker.io/library/nginx:latest');
  assert.equal(c?.state.waiting.reason, 'ContainerCreating');
  assert.equal(condition(s, 'Ready')?.status, 'False');
});

test('started: a ready fate runs Ready, a failing one terminates with exit code 1; init containers completed', () => {
  const now = '2026-01-01T00:00:01Z';
  const ready = startedStatus(pod(), { uid: 'u-1', fate: 'ready', ip: '10.128.0.2', now });
  assert.equal(ready.phase, 'Running');
  assert.equal(ready.podIP, '10.128.0.2');
  assert.equal(condition(ready, 'Ready')?.status, 'True');
  const [init] = ready.initContainerStatuses as { state: { terminated: { exitCode: number } } }[];
  assert.equal(init?.state.terminated.exitCode, 0);

  const failed = startedStatus(pod(), { uid: 'u-1', fate: 'fail', ip: '10.128.0.3', now });
  assert.equal(failed.phase, 'Failed');
  assert.equal(condition(failed, 'Ready')?.reason, 'PodFailed');
  const [c] = failed.containerStatuses as { state: { terminated: { exitCode: number } } }[];
  assert.equal(c?.state.terminated.exitCode, 1);

  const neverReady = startedStatus(pod(), { uid: 'u-1', fate: 'never-ready', ip: '10.128.0.4', now });
  assert.equal(neverReady.phase, 'Running');
  assert.equal(condition(neverReady, 'Ready')?.reason, 'ContainersNotReady');
});

test('succeeded: every container terminated with exit code 0, started at its running start', () => {
  const running = startedStatus(pod(), {
    uid: 'u-1',
    fate: 'succeed',
    ip: '10.128.0.5',
    now: '2026-01-01T00:00:01Z',
  });
  const done = succeededStatus(pod(running), '2026-01-01T00:00:09Z');
  assert.equal(done.phase, 'Succeeded');
  const [c] = done.containerStatuses as { state: { terminated: { exitCode: number; startedAt: string } } }[];
  assert.deepEqual(
    [c?.state.terminated.exitCode, c?.state.terminated.startedAt],
    [0, '2026-01-01T00:00:01Z'],
  );
});

test('crash loop: back-off 1, 2, 4 … × base capped at 30 × base, printed as Go durations', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((n) => goDuration(crashLoopBackoffMs(10_000, n))),
    ['10s', '20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s'],
  );
  assert.equal(goDuration(250), '250ms');
  assert.equal(goDuration(1500), '1.5s');
});

test('crash loop: Running, not ready; first the exit, then CrashLoopBackOff with the last exit in lastState', () => {
  const now = '2026-01-01T00:00:01Z';
  const p = pod();
  const first = crashLoopStatus(p, { uid: 'u-1', ip: '10.128.0.9', now, restarts: 0, backoffMs: undefined });
  const cs0 = (first.containerStatuses as JsonObject[])[0]!;
  assert.equal(first.phase, 'Running');
  assert.deepEqual([cs0.ready, cs0.started, cs0.restartCount, cs0.lastState], [false, false, 0, {}]);
  assert.equal((cs0.state as { terminated: JsonObject }).terminated.reason, 'Error');
  const waiting = crashLoopStatus(
    { ...p, status: first },
    { uid: 'u-1', ip: '10.128.0.9', now, restarts: 3, backoffMs: 40_000 },
  );
  const cs = (waiting.containerStatuses as JsonObject[])[0]!;
  assert.equal(waiting.phase, 'Running');
  assert.equal(cs.restartCount, 3);
  assert.deepEqual((cs.state as { waiting: JsonObject }).waiting.reason, 'CrashLoopBackOff');
  assert.match(
    String((cs.state as { waiting: JsonObject }).waiting.message),
    /^back-off 40s restarting failed container=/,
  );
  assert.deepEqual(
    [
      (cs.lastState as { terminated: JsonObject }).terminated.exitCode,
      (cs.lastState as { terminated: JsonObject }).terminated.reason,
    ],
    [1, 'Error'],
  );
  const ready = (waiting.conditions as JsonObject[]).find((c) => c.type === 'Ready');
  assert.deepEqual([ready?.status, ready?.reason], ['False', 'ContainersNotReady']);
});

test('restartsOnFailure: Always (also when unset) and OnFailure restart, Never does not', () => {
  assert.deepEqual(
    [undefined, 'Always', 'OnFailure', 'Never'].map((restartPolicy) =>
      restartsOnFailure({
        ...pod(),
        spec: { ...(pod().spec as JsonObject), ...(restartPolicy ? { restartPolicy } : {}) },
      }),
    ),
    [true, true, true, false],
  );
});
