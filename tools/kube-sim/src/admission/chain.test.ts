// The admission chain: which plugins a chain holds and in what order, that the first refusal ends the write,
// and that the owner-reference plugin judges requesters only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, type KubeObject, type ResourceType } from '../apimachinery/types.ts';
import { Registry } from '../registry/rest/resources.ts';
import { Store } from '../storage/store.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './attributes.ts';
import { AdmissionChain, admissionChain } from './chain.ts';
import { ownerReferencesPlugin } from './owner-references.ts';

const registry = new Registry();
const deps = { store: new Store(100), registry };
const pods = registry.lookup('', 'v1', 'pods') as ResourceType;

function attributes(object: KubeObject, requester: AdmissionAttributes['requester']): AdmissionAttributes {
  return { operation: 'CREATE', resource: pods, object, oldObject: undefined, requester, nowMs: 0 };
}

const ownedPod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    namespace: 'default',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' }],
  },
};

test('the default chain holds ResourceQuota; an enabled plugin joins it in kube-apiserver’s order', () => {
  assert.deepEqual(
    admissionChain(deps).plugins.map((p) => p.name),
    ['ResourceQuota'],
  );
  assert.deepEqual(
    admissionChain(deps, ['OwnerReferencesPermissionEnforcement']).plugins.map((p) => p.name),
    ['OwnerReferencesPermissionEnforcement', 'ResourceQuota'],
  );
});

test('the first plugin that refuses ends the write: later plugins are not asked', () => {
  const asked: string[] = [];
  const plugin = (name: string, refuse: boolean): AdmissionPlugin => ({
    name,
    validate: () => {
      asked.push(name);
      if (refuse) throw new ApiError(403, 'Forbidden', `${name} says no`);
    },
  });
  const chain = new AdmissionChain([plugin('a', false), plugin('b', true), plugin('c', false)]);
  assert.throws(() => chain.validate(attributes(ownedPod, undefined)), /b says no/);
  assert.deepEqual(asked, ['a', 'b']);
});

test('owner references: a requester who may not delete the object is refused; in-process writes pass', () => {
  const plugin = ownerReferencesPlugin(registry);
  const asked: string[] = [];
  const requester = {
    user: 'someone',
    authorize: (r: { verb: string; resource: string }) => {
      asked.push(`${r.verb} ${r.resource}`);
      throw new ApiError(403, 'Forbidden', 'no');
    },
  };
  assert.throws(
    () => plugin.validate(attributes(ownedPod, requester)),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 403 &&
      /cannot set an ownerRef on a resource you can't delete/.test(e.message),
  );
  assert.deepEqual(asked, ['delete pods']);
  assert.doesNotThrow(() => plugin.validate(attributes(ownedPod, undefined)));
});
