import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  collectionPath,
  isWatchedKind,
  keyFor,
  keysOf,
  objectId,
  podReady,
  podSetKey,
  streamId,
  type WatchedObject,
} from './keys.ts';

const owner = (over: Record<string, unknown> = {}) => ({
  apiVersion: 'podset.io/v1',
  kind: 'PodSet',
  name: 'web',
  uid: 'u1',
  controller: true,
  ...over,
});
const pod = (refs: unknown[] | undefined, namespace: string | null = 'default'): WatchedObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-abcde', namespace: namespace ?? undefined, ownerReferences: refs },
  }) as WatchedObject;

test('a PodSet maps to namespace/name', () => {
  assert.equal(podSetKey({ metadata: { namespace: 'prod', name: 'web' } }), 'prod/web');
  assert.equal(keyFor('podsets', { metadata: { namespace: 'a', name: 'b' } }), 'a/b');
});

test('a PodSet without namespace or name has no key', () => {
  assert.equal(podSetKey({ metadata: { name: 'web' } }), undefined);
  assert.equal(podSetKey({ metadata: { namespace: 'x', name: '' } }), undefined);
  assert.equal(podSetKey({}), undefined);
});

test('a pod maps to its controlling PodSet in its own namespace', () => {
  assert.equal(keyFor('pods', pod([owner()], 'team-a')), 'team-a/web');
  assert.equal(keyFor('pods', pod([owner({ name: 'api' })])), 'default/api');
});

test('only the controller reference counts, wherever it is in the list', () => {
  const refs = [owner({ name: 'other', controller: false }), owner({ name: 'mine' })];
  assert.equal(keyFor('pods', pod(refs)), 'default/mine');
  assert.equal(keyFor('pods', pod([owner({ controller: false })])), undefined);
  assert.equal(keyFor('pods', pod([owner({ controller: undefined })])), undefined);
});

test('a pod controlled by something else, or by another API version, has no key', () => {
  assert.equal(keyFor('pods', pod([owner({ kind: 'ReplicaSet', apiVersion: 'apps/v1' })])), undefined);
  assert.equal(keyFor('pods', pod([owner({ apiVersion: 'podset.io/v2' })])), undefined);
  assert.equal(keyFor('pods', pod([owner({ kind: 'Podset' })])), undefined);
  // A non-PodSet controller wins over a non-controller PodSet reference.
  const refs = [owner({ controller: false }), owner({ kind: 'ReplicaSet', apiVersion: 'apps/v1' })];
  assert.equal(keyFor('pods', pod(refs)), undefined);
});

test('a pod without ownerReferences, namespace or owner name has no key', () => {
  assert.equal(keyFor('pods', pod(undefined)), undefined);
  assert.equal(keyFor('pods', pod([])), undefined);
  assert.equal(keyFor('pods', pod([owner()], null)), undefined);
  assert.equal(keyFor('pods', pod([owner({ name: '' })])), undefined);
});

test('keysOf deduplicates the pods of one PodSet and skips unowned pods', () => {
  const pods = [pod([owner()]), pod([owner()]), pod([owner({ name: 'api' })]), pod(undefined)];
  assert.deepEqual(keysOf('pods', pods), ['default/web', 'default/api']);
});

test('podReady reads the Ready condition', () => {
  assert.equal(podReady({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }), true);
  assert.equal(podReady({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }), false);
  assert.equal(podReady({ status: { conditions: [] } }), false);
  assert.equal(podReady({ status: {} }), undefined);
});

test('paths and stream ids per namespace', () => {
  assert.equal(collectionPath('podsets', undefined), '/apis/podset.io/v1/podsets');
  assert.equal(collectionPath('podsets', 'prod'), '/apis/podset.io/v1/namespaces/prod/podsets');
  assert.equal(collectionPath('pods', undefined), '/api/v1/pods');
  assert.equal(collectionPath('pods', 'prod'), '/api/v1/namespaces/prod/pods');
  assert.equal(streamId('pods', undefined), 'pods/*');
  assert.equal(streamId('podsets', 'prod'), 'podsets/prod');
});

test('isWatchedKind accepts only the watched kind and API version', () => {
  assert.equal(isWatchedKind('podsets', { apiVersion: 'podset.io/v1', kind: 'PodSet' }), true);
  assert.equal(isWatchedKind('podsets', { apiVersion: 'v1', kind: 'ConfigMap' }), false);
  assert.equal(isWatchedKind('podsets', { apiVersion: 'v1', kind: 'Pod' }), false);
  assert.equal(isWatchedKind('podsets', {}), false);
  assert.equal(isWatchedKind('pods', { apiVersion: 'v1', kind: 'Pod' }), true);
  assert.equal(isWatchedKind('pods', { apiVersion: 'podset.io/v1', kind: 'PodSet' }), false);
});

test('a pod released from its PodSet (no PodSet controller) maps to the PodSet its podset.io/name label names', () => {
  const labelled = (refs: unknown[] | undefined, label: string | undefined): WatchedObject => {
    const p = pod(refs);
    p.metadata = { ...p.metadata, ...(label !== undefined ? { labels: { 'podset.io/name': label } } : {}) };
    return p;
  };
  assert.equal(keyFor('pods', labelled(undefined, 'web')), 'default/web', 'controller reference removed');
  assert.equal(
    keyFor('pods', labelled([owner({ name: 'api' })], 'web')),
    'default/api',
    'the controller wins',
  );
  assert.equal(
    keyFor('pods', labelled([owner({ kind: 'ReplicaSet', apiVersion: 'apps/v1' })], 'web')),
    'default/web',
  );
  assert.equal(keyFor('pods', labelled(undefined, '')), undefined);
  assert.equal(keyFor('pods', labelled(undefined, undefined)), undefined);
});

test("objectId: an object's namespace/name, the same for the same object, another for another", () => {
  const a = { metadata: { namespace: 'team-a', name: 'web-1' } };
  const b = { metadata: { namespace: 'team-a', name: 'web-2' } };
  assert.equal(objectId(a), 'team-a/web-1');
  assert.equal(objectId(a), 'team-a/web-1', 'asked again');
  assert.equal(objectId(b), 'team-a/web-2');
  assert.equal(objectId({ metadata: { name: 'x' } }), '/x');
  assert.equal(objectId(a), 'team-a/web-1', 'after another');
});
