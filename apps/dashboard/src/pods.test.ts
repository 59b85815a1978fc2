import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod, PodSet } from '@podset/kube';
import type { EventLogEntry } from '@podset/event-log';
import { isOwnEvent, podsOf, templateSummary } from './pods.ts';

const ps: PodSet = {
  apiVersion: 'podset.io/v1',
  kind: 'PodSet',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
  spec: {
    replicas: 2,
    template: {
      spec: {
        initContainers: [{ name: 'init', image: 'busybox:1.36' }],
        containers: [{ name: 'app', image: 'nginx:1.27' }],
      },
    },
  },
} as PodSet;

function pod(name: string, ownerUid: string | undefined, extra: Partial<Pod> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { 'podset.io/name': 'web', 'podset.io/template-hash': 'h1' },
      ...(ownerUid !== undefined
        ? {
            ownerReferences: [
              { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: ownerUid, controller: true },
            ],
          }
        : {}),
    },
    ...extra,
  } as Pod;
}

test("a PodSet's pods: only those it controls (its uid), oldest first; the others named apart", () => {
  const younger = pod('web-bbbbb', 'uid-web', {
    spec: { nodeName: 'node-1' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
  younger.metadata.creationTimestamp = '2026-01-01T00:01:00Z';
  const older = pod('web-aaaaa', 'uid-web', { status: { phase: 'Pending' } });
  const terminating = pod('web-ccccc', 'uid-web', { status: { phase: 'Running' } });
  terminating.metadata.deletionTimestamp = '2026-01-01T00:02:00Z';
  const released = pod('web-debug', undefined);
  const namesake = pod('web-zzzzz', 'uid-of-a-deleted-web');
  const { pods, others } = podsOf(ps, [younger, released, older, namesake, terminating]);
  assert.deepEqual(
    pods.map((p) => [p.name, p.phase, p.ready, p.node]),
    [
      ['web-aaaaa', 'Pending', false, undefined],
      ['web-ccccc', 'Terminating', false, undefined],
      ['web-bbbbb', 'Running', true, 'node-1'],
    ],
  );
  assert.equal(pods[0]?.templateHash, 'h1');
  assert.equal(pods[0]?.createdAt, '2026-01-01T00:00:00.000Z');
  assert.deepEqual(others, ['web-debug', 'web-zzzzz']);
});

test('the template: images (init containers first), strategy, its hash; the defaults when unset', () => {
  const t = templateSummary(ps);
  assert.deepEqual(t.images, ['busybox:1.36', 'nginx:1.27']);
  assert.equal(t.strategy, 'RollingUpdate (maxSurge 25%, maxUnavailable 25%)');
  assert.match(t.templateHash, /^[0-9a-f]{10}$/);
  const recreate = templateSummary({
    ...ps,
    spec: { ...ps.spec, strategy: { type: 'Recreate' } },
  } as PodSet);
  assert.equal(recreate.strategy, 'Recreate');
  const surge = templateSummary({
    ...ps,
    spec: {
      ...ps.spec,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    },
  } as PodSet);
  assert.equal(surge.strategy, 'RollingUpdate (maxSurge 1, maxUnavailable 0)');
  const bare = templateSummary({ ...ps, spec: { replicas: 1 } } as PodSet);
  assert.deepEqual(bare.images, ['busybox:1.36'], 'the default template');
});

const podEvent = (kind: string, name: string, extra: Partial<EventLogEntry> = {}): EventLogEntry => ({
  id: '1-0',
  t: '2026-01-01T00:00:00Z',
  type: 'ADDED',
  kind,
  key: 'default/web',
  name,
  rv: '1',
  ...extra,
});

test("watch events on the PodSet's page: its own and those of the pods it controls, by the recorded owner", () => {
  const web = { name: 'web', uid: 'uid-web' };
  const e = podEvent;
  assert.equal(isOwnEvent(e('PodSet', 'web'), web, []), true);
  assert.equal(isOwnEvent(e('Pod', 'web-aaaaa', { owner: 'uid-web' }), web, []), true);
  assert.equal(
    isOwnEvent(e('Pod', 'web-xyz', { type: 'DELETED', owner: '' }), web, []),
    false,
    'a deleted stray pod named like its own, controlled by no PodSet',
  );
  assert.equal(
    isOwnEvent(e('Pod', 'web-bbbbb', { owner: 'uid-earlier-web' }), web, []),
    false,
    'a pod of a deleted namesake PodSet',
  );
  assert.equal(
    isOwnEvent(e('Pod', 'stray', { owner: 'uid-web' }), web, ['stray']),
    true,
    'the recorded owner decides, not the name or the current pod list',
  );
  assert.equal(
    isOwnEvent(e('Pod', 'web-xyz', { owner: '' }), { name: 'web' }, []),
    false,
    'controlled by no PodSet, whether or not the uid is known',
  );
  assert.equal(
    isOwnEvent(e('Pod', 'web-bbbbb', { owner: 'uid-any' }), { name: 'web' }, []),
    true,
    'uid unknown (PodSet not read): by name',
  );
});

test("an older watcher's entry (no owner) falls back to the name and the current pod list", () => {
  const web = { name: 'web', uid: 'uid-web' };
  const e = podEvent;
  assert.equal(isOwnEvent(e('Pod', 'web-aaaaa'), web, ['web-debug']), true);
  assert.equal(isOwnEvent(e('Pod', 'web-debug'), web, ['web-debug']), false, 'listed as not its own');
  assert.equal(isOwnEvent(e('Pod', 'stray'), web, []), false, 'not a name its generateName makes');
});
