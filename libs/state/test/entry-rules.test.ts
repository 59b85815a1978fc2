// One case table per rule that both the TypeScript and the Lua read: each pod is encoded as the fold stores
// it, and the Lua twin must say of the stored entry what the TypeScript rule says of the pod.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, KIND, isPodReady, podLifecycle, podSetControllerRef } from '@podset/reconcile';
import { useRedis } from '@podset/testkit';
import { decodePod, encodePod, ENTRY_LUA, type ProjectedPod } from '../src/entry.ts';

const server = useRedis();
const redis = server.client;

const owner = (kind: string, controller: boolean) => ({
  apiVersion: API_VERSION,
  kind,
  name: 'web',
  uid: 'u-1',
  controller,
});
const CASES: [string, ProjectedPod][] = [
  ['no status', { metadata: { name: 'a' } }],
  [
    'Running, Ready True',
    {
      metadata: { name: 'a' },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    },
  ],
  ['Ready False', { metadata: { name: 'a' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }],
  [
    'ContainersReady True only',
    { metadata: { name: 'a' }, status: { conditions: [{ type: 'ContainersReady', status: 'True' }] } },
  ],
  ['deleting', { metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z' } }],
  [
    'deleting, Succeeded',
    { metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Succeeded' } },
  ],
  ['Failed', { metadata: { name: 'a' }, status: { phase: 'Failed' } }],
  ['controlled by a PodSet', { metadata: { name: 'a', ownerReferences: [owner(KIND, true)] } }],
  ['owned, not controlled, by a PodSet', { metadata: { name: 'a', ownerReferences: [owner(KIND, false)] } }],
  ['controlled by a ReplicaSet', { metadata: { name: 'a', ownerReferences: [owner('ReplicaSet', true)] } }],
  ['a name with a tab and %', { metadata: { name: 'a', uid: 'x\ty%' }, status: { phase: 'Pending' } }],
];

const entryOf = (pod: ProjectedPod) => `7\t42\tTAG\t${encodePod(pod).fields}`;

async function lua(fn: 'podDeleting' | 'isTombstone', entry: string): Promise<boolean> {
  return (await redis.eval(`${ENTRY_LUA}\nif ${fn}(ARGV[1]) then return 1 end\nreturn 0`, 0, entry)) === 1;
}

test('terminating (a deletionTimestamp): the Lua podDeleting of the stored entry agrees with podLifecycle', async () => {
  for (const [name, pod] of CASES) {
    assert.equal(await lua('podDeleting', entryOf(pod)), podLifecycle(pod) === 'terminating', name);
    assert.equal(await lua('isTombstone', entryOf(pod)), false, `${name}: a pod entry is no tombstone`);
  }
  assert.equal(await lua('isTombstone', '7\t42\n1700000000000'), true);
  assert.equal(await lua('podDeleting', '7\t42\n1700000000000'), false, 'a tombstone is not a deleting pod');
});

test('readiness and the PodSet controller survive the stored entry as the rules in libs/reconcile read them', () => {
  for (const [name, pod] of CASES) {
    const back = decodePod('a', 'default/web', encodePod(pod).fields);
    assert.equal(isPodReady(back), isPodReady(pod), `${name}: ready`);
    assert.equal(podSetControllerRef(back)?.uid, podSetControllerRef(pod)?.uid, `${name}: PodSet controller`);
    assert.equal(podLifecycle(back), podLifecycle(pod), `${name}: lifecycle`);
  }
});
