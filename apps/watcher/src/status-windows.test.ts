// The judgement of how long a status-only change's request waits: at once when the PodSet's pods are all
// ready, the short window while its status says a rollout is under way, the long one otherwise; and the
// memory it is judged from, as pods and PodSets come, change, go and are relisted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WatchedObject } from './keys.ts';
import { StatusWindows, windowOf } from './status-windows.ts';

const SHORT = 1000;
const PARTIAL = 3000;
const KEY = 'default/web';

interface PodShape {
  ready?: boolean;
  phase?: string;
  deleting?: boolean;
  podset?: string;
  namespace?: string;
}

function pod(name: string, o: PodShape = {}): WatchedObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: o.namespace ?? 'default',
      name,
      labels: { 'podset.io/name': o.podset ?? 'web' },
      ...(o.deleting === true ? { deletionTimestamp: '2026-12-01T00:00:00Z' } : {}),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: o.ready === true ? 'True' : 'False' }],
    },
  };
}

function podset(replicas: number, progressing?: string): WatchedObject {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { namespace: 'default', name: 'web' },
    spec: { replicas },
    status:
      progressing === undefined
        ? {}
        : { conditions: [{ type: 'Progressing', status: 'True', reason: progressing }] },
  } as WatchedObject;
}

const windows = () => new StatusWindows({ shortMs: SHORT, partialMs: PARTIAL });

test('pods coming ready: the long window while one is not ready, at once when the last one is', () => {
  const w = windows();
  w.seen('podsets', 'ADDED', podset(3, 'WaitingForReady'));
  for (const name of ['a', 'b', 'c']) w.seen('pods', 'ADDED', pod(name));
  assert.equal(w.windowMs(KEY), PARTIAL);
  w.seen('pods', 'MODIFIED', pod('a', { ready: true }));
  w.seen('pods', 'MODIFIED', pod('b', { ready: true }));
  assert.equal(w.windowMs(KEY), PARTIAL, 'one not ready left');
  w.seen('pods', 'MODIFIED', pod('c', { ready: true }));
  assert.equal(w.windowMs(KEY), 0, 'all ready');
  w.seen('pods', 'MODIFIED', pod('b', { ready: false }));
  assert.equal(w.windowMs(KEY), PARTIAL, 'one turned not ready again');
});

test('fewer ready pods than the replicas the PodSet asks for: not all ready yet', () => {
  const w = windows();
  w.seen('podsets', 'ADDED', podset(3));
  w.seen('pods', 'ADDED', pod('a', { ready: true }));
  w.seen('pods', 'ADDED', pod('b', { ready: true }));
  assert.equal(w.windowMs(KEY), PARTIAL, '2 of 3');
  w.seen('podsets', 'MODIFIED', podset(2));
  assert.equal(w.windowMs(KEY), 0, 'scaled to 2');
  w.seen('podsets', 'DELETED', podset(2));
  w.seen('pods', 'DELETED', pod('b', { ready: true }));
  assert.equal(w.windowMs(KEY), 0, 'no PodSet remembered: the pods alone tell');
});

test('a rollout under way (Progressing RollingOut): the short window, unless every pod is ready', () => {
  const w = windows();
  w.seen('podsets', 'ADDED', podset(2, 'RollingOut'));
  w.seen('pods', 'ADDED', pod('old', { ready: true }));
  w.seen('pods', 'ADDED', pod('new'));
  assert.equal(w.windowMs(KEY), SHORT);
  w.seen('pods', 'MODIFIED', pod('new', { ready: true }));
  assert.equal(w.windowMs(KEY), 0, 'the step is done: the next one at once');
  w.seen('pods', 'ADDED', pod('new2'));
  w.seen('podsets', 'MODIFIED', podset(2, 'PodSetAvailable'));
  assert.equal(w.windowMs(KEY), PARTIAL, 'no rollout any more');
});

test('terminating, finished and deleted pods are not waited for', () => {
  const w = windows();
  w.seen('pods', 'ADDED', pod('a', { ready: true }));
  w.seen('pods', 'ADDED', pod('b'));
  w.seen('pods', 'ADDED', pod('c'));
  w.seen('pods', 'ADDED', pod('d'));
  assert.equal(w.windowMs(KEY), PARTIAL);
  w.seen('pods', 'MODIFIED', pod('b', { deleting: true }));
  w.seen('pods', 'MODIFIED', pod('c', { phase: 'Failed' }));
  assert.equal(w.windowMs(KEY), PARTIAL, 'd is still not ready');
  w.seen('pods', 'DELETED', pod('d'));
  assert.equal(w.windowMs(KEY), 0);
  assert.equal(
    w.size,
    1,
    'only the active pod is remembered: terminating, finished and deleted ones cost nothing',
  );
});

test('a relist: listed pods are remembered as they are, those it did not list (in its namespace) forgotten', () => {
  const w = windows();
  w.seen('pods', 'ADDED', pod('a', { ready: true }));
  w.seen('pods', 'ADDED', pod('gone'));
  w.seen('pods', 'ADDED', pod('x', { namespace: 'other' }));
  assert.equal(w.windowMs(KEY), PARTIAL);
  w.relistStarted('pods/default');
  w.listed('pods/default', 'pods', [pod('a', { ready: true })]);
  assert.equal(w.windowMs(KEY), PARTIAL, 'not forgotten before the relist is done');
  w.relistDone({ stream: 'pods/default', resource: 'pods', namespace: 'default' });
  assert.equal(w.windowMs(KEY), 0, 'deleted while unwatched: forgotten');
  assert.equal(w.windowMs('other/web'), PARTIAL, 'another namespace untouched');
});

test('a batch: one window per key, those not at the default (the long window) listed', () => {
  const w = windows();
  w.seen('pods', 'ADDED', pod('a', { ready: true }));
  w.seen('pods', 'ADDED', pod('b', { podset: 'api' }));
  w.seen('podsets', 'ADDED', { ...podset(1, 'RollingOut'), metadata: { namespace: 'default', name: 'db' } });
  w.seen('pods', 'ADDED', pod('c', { podset: 'db' }));
  const batch = w.windows([KEY, 'default/api', 'default/db', KEY]);
  assert.deepEqual(batch, {
    defaultMs: PARTIAL,
    exceptions: new Map([
      [KEY, 0],
      ['default/db', SHORT],
    ]),
  });
  assert.equal(windowOf(batch, 'default/api'), PARTIAL);
});

test('STATUS_COLLAPSE_MS 0: every status-only change at once, whatever the memory says', () => {
  const w = new StatusWindows({ shortMs: 0, partialMs: PARTIAL });
  w.seen('pods', 'ADDED', pod('a'));
  assert.equal(w.windowMs(KEY), 0);
  assert.deepEqual(w.windows([KEY]), { defaultMs: 0, exceptions: new Map() });
});

test('a pod that turns inactive is dropped from its tally, and the tally with its last pod', () => {
  const w = windows();
  w.seen('pods', 'ADDED', pod('a'));
  w.seen('pods', 'ADDED', pod('b', { ready: true }));
  w.seen('pods', 'MODIFIED', pod('a', { deleting: true }));
  assert.equal(w.windowMs(KEY), 0, 'b alone is counted, and it is ready');
  w.seen('pods', 'MODIFIED', pod('b', { phase: 'Succeeded', ready: true }));
  assert.equal(w.size, 0);
  w.seen('pods', 'ADDED', pod('c'));
  assert.equal(w.windowMs(KEY), PARTIAL, 'a tally made anew counts from zero');
  w.seen('pods', 'MODIFIED', pod('c', { ready: true }));
  assert.equal(w.windowMs(KEY), 0, 'its pod moved from the unready side to the ready one');
});
