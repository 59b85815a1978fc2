// One case table per rule that both the TypeScript and the Lua read: each pod is encoded as the fold stores
// it, and the Lua twin must say of the stored entry (or digest) what the TypeScript rule says of the pod.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  API_VERSION,
  KIND,
  TEMPLATE_HASH_LABEL,
  isPodReady,
  podLifecycle,
  podSetControllerRef,
} from '@podset/reconcile';
import { useRedis } from '@podset/testkit';
import {
  decodePod,
  encodePod,
  ENTRY_LUA,
  inputsChange,
  inputsDigest,
  podDigest,
  podSetInputs,
  type InputsChange,
  type ProjectedPod,
} from '../src/entry.ts';
import {
  EXPECTATION_CLOCK_SKEW_MS,
  EXPECTATION_TTL_MS,
  PENDING_CREATES_MAX,
  pendingCreates,
} from '../src/projection-reader.ts';

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
  return (
    (await redis.eval(`${ENTRY_LUA.source}\nif ${fn}(ARGV[1]) then return 1 end\nreturn 0`, 0, entry)) === 1
  );
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

// What a pod event changed of what a plan reads, from the pod as last requested (undefined: never) to the
// pod the event carries: the TypeScript inputsChange and its Lua twin, on the digests a fold stores.
const running = (
  over: Partial<ProjectedPod['metadata']> = {},
  phase = 'Running',
  ready = true,
): ProjectedPod => ({
  metadata: {
    name: 'web-a',
    uid: 'pod-1',
    ownerReferences: [owner(KIND, true)],
    labels: { [TEMPLATE_HASH_LABEL]: 'h1', tier: 'web' },
    ...over,
  },
  spec: { nodeName: 'node-1' },
  status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const unbound = (): ProjectedPod => ({ ...running({}, 'Pending', false), spec: {} });
const CHANGES: [string, ProjectedPod | undefined, ProjectedPod, InputsChange][] = [
  ['a pod first seen (created, or unknown before)', undefined, unbound(), 'plan'],
  ['nothing a plan reads (a re-delivered event)', running(), running(), 'none'],
  ['bound to a node', unbound(), { ...unbound(), spec: { nodeName: 'node-1' } }, 'none'],
  [
    'an annotation or another label',
    running(),
    running({ annotations: { a: 'b' }, labels: { [TEMPLATE_HASH_LABEL]: 'h1' } }),
    'none',
  ],
  ['Pending → Running', running({}, 'Pending', false), running({}, 'Running', false), 'status'],
  ['Ready False → True', running({}, 'Running', false), running(), 'status'],
  ['Ready True → False', running(), running({}, 'Running', false), 'status'],
  ['Pending → Running and Ready at once', unbound(), running(), 'status'],
  ['Running → Succeeded', running(), running({}, 'Succeeded', false), 'plan'],
  ['Running → Failed', running(), running({}, 'Failed', false), 'plan'],
  ['Pending → Failed', running({}, 'Pending', false), running({}, 'Failed', false), 'plan'],
  ['being deleted', running(), running({ deletionTimestamp: '2026-12-01T00:00:00Z' }), 'plan'],
  [
    'being deleted and no longer ready',
    running(),
    running({ deletionTimestamp: '2026-12-01T00:00:00Z' }, 'Running', false),
    'plan',
  ],
  ['released (controller reference removed)', running(), running({ ownerReferences: [] }), 'plan'],
  [
    'controlled by another PodSet uid',
    running(),
    running({ ownerReferences: [{ ...owner(KIND, true), uid: 'u-2' }] }),
    'plan',
  ],
  [
    'another template hash',
    running(),
    running({ labels: { [TEMPLATE_HASH_LABEL]: 'h2', tier: 'web' } }),
    'plan',
  ],
  ['another pod of the same name', running(), running({ uid: 'pod-2' }), 'plan'],
];

async function luaInputsChange(requested: string | undefined, digest: string): Promise<string> {
  const script = `${ENTRY_LUA.source}\nlocal requested = false\nif ARGV[1] == '1' then requested = ARGV[2] end\nreturn inputsChange(requested, ARGV[3])`;
  return (await redis.eval(
    script,
    0,
    requested === undefined ? '0' : '1',
    requested ?? '',
    digest,
  )) as string;
}

test('a pod event changes the plan, only the status, or nothing: inputsChange and its Lua twin agree on one table', async () => {
  for (const [name, before, after, expected] of CHANGES) {
    const requested = before === undefined ? undefined : podDigest(before);
    assert.equal(inputsChange(requested, podDigest(after)), expected, `${name} (TypeScript)`);
    assert.equal(await luaInputsChange(requested, podDigest(after)), expected, `${name} (Lua)`);
  }
});

test('a digest without a status half (a PodSet, or a pod as an earlier version stored it) changes only as a plan', async () => {
  const podset = (generation: number) => inputsDigest(podSetInputs({ uid: 'u-1', generation }));
  const earlier = inputsDigest(`Running\t1\t\tu-1\tpod-1\th1`);
  const rows: [string, string | undefined, string, InputsChange][] = [
    ['PodSet unchanged', podset(1), podset(1), 'none'],
    ['PodSet spec changed', podset(1), podset(2), 'plan'],
    ['PodSet first seen', undefined, podset(1), 'plan'],
    ["a pod's digest of an earlier version", earlier, podDigest(running()), 'plan'],
  ];
  for (const [name, requested, digest, expected] of rows) {
    assert.equal(inputsChange(requested, digest), expected, `${name} (TypeScript)`);
    assert.equal(await luaInputsChange(requested, digest), expected, `${name} (Lua)`);
  }
});

// A worker's pending creates (the units it reserves before its names are known) as a stored value holds
// them at `now`: the TypeScript pendingCreates and its Lua twin, on one table.
test('pending creates: pendingCreates and its Lua twin agree on what a stored value holds', async () => {
  const now = 1_000_000;
  const far = now + EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS;
  const rows: [string, string | undefined, number][] = [
    ['none stored', undefined, 0],
    ['a worker’s reservation', `n${now + EXPECTATION_TTL_MS}\t3`, 3],
    ['as far ahead as a worker with a clock ahead writes', `n${far}\t3`, 3],
    ['further ahead than any worker writes', `n${far + 1}\t3`, 0],
    ['expired', `n${now}\t3`, 0],
    ['at the cap', `n${now + 1}\t${PENDING_CREATES_MAX}`, PENDING_CREATES_MAX],
    ['above the cap', `n${now + 1}\t${PENDING_CREATES_MAX + 1}`, 0],
    ['zero units', `n${now + 1}\t0`, 0],
    ['no count', `n${now + 1}`, 0],
    ['another kind', `c${now + 1}\t3`, 0],
    ['a negative count', `n${now + 1}\t-3`, 0],
    ['too long', `n${now + 1}\t${'0'.repeat(40)}3`, 0],
  ];
  const script = `${ENTRY_LUA.source}\nlocal v = false\nif ARGV[1] == '1' then v = ARGV[2] end\nreturn pendingCount(v, tonumber(ARGV[3]))`;
  for (const [name, value, expected] of rows) {
    assert.equal(pendingCreates(value, now), expected, `${name} (TypeScript)`);
    const lua = await redis.eval(script, 0, value === undefined ? '0' : '1', value ?? '', String(now));
    assert.equal(lua, expected, `${name} (Lua)`);
  }
});
