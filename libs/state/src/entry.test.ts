// The projection's compact pod entry: what the planner reads survives the round trip exactly, and the
// inputs change exactly when a plan input does.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { isControlledBy, type PodSet } from '@podset/reconcile';
import {
  DIGEST_LENGTH,
  decodePod,
  encodePod,
  inputsDigest,
  podInputsDigest,
  type ProjectedPod,
} from './entry.ts';

const owner = { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'ps-uid', controller: true };

function pod(over: Partial<ProjectedPod['metadata']> = {}, phase = 'Running', ready = true): ProjectedPod {
  return {
    metadata: {
      name: 'web-abcde',
      namespace: 'ns',
      uid: 'pod-uid',
      resourceVersion: '7',
      creationTimestamp: '2026-11-25T08:00:00Z',
      ownerReferences: [owner],
      labels: { app: 'web', 'podset.io/template-hash': 'h1' },
      ...over,
    },
    spec: { nodeName: 'node-1' },
    status: {
      phase,
      conditions: [
        { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2026-11-25T08:00:30Z' },
      ],
    },
  };
}

test('a pod decodes to what the planner reads of it: name, namespace, uid, times, owner, node, phase, readiness, template', () => {
  const original = pod({ deletionTimestamp: '2026-11-25T08:01:00Z' });
  const decoded = decodePod('web-abcde', 'ns/web', encodePod(original).fields, '7');
  assert.deepEqual(decoded, {
    metadata: {
      name: 'web-abcde',
      namespace: 'ns',
      uid: 'pod-uid',
      resourceVersion: '7',
      creationTimestamp: '2026-11-25T08:00:00Z',
      deletionTimestamp: '2026-11-25T08:01:00Z',
      labels: { 'podset.io/template-hash': 'h1' },
      ownerReferences: [owner],
    },
    spec: { nodeName: 'node-1' },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-25T08:00:30Z' }],
    },
  });
  const podset = { metadata: { name: 'web', namespace: 'ns', uid: 'ps-uid' } } as PodSet;
  assert.equal(isControlledBy(decoded, podset), true);
});

test('fields holding the separators or escapes come back exactly', () => {
  const odd = pod({ uid: 'a\tb%09c%d\nx' }, 'Odd\tPhase%25');
  const decoded = decodePod('p', 'ns/web', encodePod(odd).fields);
  assert.equal(decoded.metadata.uid, 'a\tb%09c%d\nx');
  assert.equal(decoded.status?.phase, 'Odd\tPhase%25');
  assert.equal(encodePod(odd).fields.split('\t').length, 11, 'one tab between each of the 11 fields');
});

test('a pod without an owner, a node, a phase or times decodes without them', () => {
  const bare: ProjectedPod = { metadata: { name: 'p', uid: 'u' } };
  assert.deepEqual(decodePod('p', 'ns/web', encodePod(bare).fields), {
    metadata: { name: 'p', namespace: 'ns', uid: 'u' },
    status: { conditions: [{ type: 'Ready', status: 'False' }] },
  });
  const foreign = pod({ ownerReferences: [{ ...owner, kind: 'ReplicaSet', apiVersion: 'apps/v1' }] });
  assert.equal(decodePod('p', 'ns/web', encodePod(foreign).fields).metadata.ownerReferences, undefined);
});

test('an entry written before template hashes decodes as a pod without one', () => {
  const old = 'Running\t1\t\tps-uid\tpod-uid\t2026-11-25T08:00:00Z\tnode-1';
  const decoded = decodePod('p', 'ns/web', old);
  // Listed by the key's podset.io/name label, as every pod the watch saw then was.
  assert.deepEqual(decoded.metadata.labels, { 'podset.io/name': 'web' });
  assert.equal(decoded.metadata.creationTimestamp, '2026-11-25T08:00:00Z');
  assert.deepEqual(decoded.status?.conditions, [{ type: 'Ready', status: 'True' }]);
});

test('the plan inputs change with finishing, deletion, owner, uid and template; the status inputs with phase and readiness; nothing else changes either', () => {
  const base = encodePod(pod()).inputs;
  for (const changed of [
    pod({}, 'Failed'),
    pod({}, 'Succeeded'),
    pod({ deletionTimestamp: '2026-11-25T08:01:00Z' }),
    pod({ ownerReferences: [{ ...owner, uid: 'other' }] }),
    pod({ uid: 'pod-uid-2' }),
    pod({ labels: { app: 'web', 'podset.io/template-hash': 'h2' } }),
    pod({ labels: { app: 'web', 'podset.io/template-hash': 'h1', 'podset.io/name': 'debug' } }),
  ])
    assert.notEqual(encodePod(changed).inputs.plan, base.plan);
  for (const changed of [pod({}, 'Pending'), pod({}, 'Running', false), pod({}, 'Unknown')]) {
    assert.equal(encodePod(changed).inputs.plan, base.plan);
    assert.notEqual(encodePod(changed).inputs.status, base.status);
  }
  const unchanged = pod({
    resourceVersion: '8',
    labels: { app: 'other', 'podset.io/template-hash': 'h1' },
    annotations: { 'controller.kubernetes.io/pod-deletion-cost': '5' },
  });
  unchanged.spec = { nodeName: 'node-2' };
  assert.deepEqual(encodePod(unchanged).inputs, base);
  assert.equal(inputsDigest(base.plan).length, DIGEST_LENGTH);
  assert.equal(podInputsDigest(base).length, 2 * DIGEST_LENGTH);
  assert.notEqual(podInputsDigest(base), podInputsDigest(encodePod(pod({}, 'Failed')).inputs));
});

test('the podset.io/name label and the pod-deletion-cost annotation come back (the claim rules and the ranking read them)', () => {
  const labelled = pod({
    labels: { 'podset.io/name': 'debug', 'podset.io/template-hash': 'h1' },
    annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-3', other: 'dropped' },
  });
  const decoded = decodePod('p', 'ns/web', encodePod(labelled).fields);
  assert.deepEqual(decoded.metadata.labels, { 'podset.io/name': 'debug', 'podset.io/template-hash': 'h1' });
  assert.deepEqual(decoded.metadata.annotations, { 'controller.kubernetes.io/pod-deletion-cost': '-3' });
  // Stored without the label (an entry of this version whose pod has none): decoded without it.
  assert.equal(
    decodePod('p', 'ns/web', encodePod(pod()).fields).metadata.labels?.['podset.io/name'],
    undefined,
  );
});

test('a digest is hashed once for the same inputs, and is the SHA-1 it always was', (t) => {
  const realHash = crypto.hash;
  let hashes = 0;
  t.mock.method(crypto, 'hash', (...args: Parameters<typeof crypto.hash>) => {
    hashes++;
    return realHash(...args);
  });
  syncBuiltinESMExports();
  t.after(() => {
    t.mock.restoreAll();
    syncBuiltinESMExports();
  });
  const sha1 = (s: string) => realHash('sha1', s, 'base64url').slice(0, DIGEST_LENGTH);
  // A pod's four lifecycle events: the plan half alike on all, the status half one of two values.
  const events = [pod({}, 'Pending', false), pod({}, 'Pending', false), pod({}, 'Running', false), pod()];
  const digests = events.map((p) => podInputsDigest(encodePod(p).inputs));
  assert.ok(hashes <= 4, `${hashes} hashes: the plan half once, each of the three status halves once`);
  hashes = 0;
  assert.deepEqual(
    events.map((p) => podInputsDigest(encodePod(p).inputs)),
    digests,
  );
  assert.equal(hashes, 0, 'the same events again: nothing hashed');
  events.forEach((p, i) => {
    const { inputs } = encodePod(p);
    assert.equal(digests[i], sha1(inputs.plan) + sha1(inputs.status));
  });
  // Past the bound it forgets, and still answers right.
  for (let i = 0; i < 5000; i++) assert.equal(inputsDigest(`inputs ${i}`), sha1(`inputs ${i}`));
  assert.equal(podInputsDigest(encodePod(pod()).inputs), digests[3]);
});
