import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../apimachinery/types.ts';
import { pendingStatus, startedStatus, succeededStatus, unschedulableStatus } from './pod-status.ts';

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
