import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toFieldsV1 } from './fieldset.ts';
import { compare, fieldSetOf, mergeApplied, removeFields, withNamedParents } from './field-ops.ts';
import { typeViewOf } from './field-types.ts';
import type { JsonObject, JSONSchemaProps, ResourceType } from '../apimachinery/types.ts';

const builtin = (kind: string): ResourceType =>
  ({ group: 'apps', version: 'v1', kind, subresources: {} }) as unknown as ResourceType;
const deploy = typeViewOf(builtin('Deployment'), false);

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        parts: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'zone'],
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, zone: { type: 'string', default: 'a' } },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        extra: {
          type: 'object',
          additionalProperties: { type: 'object', properties: { v: { type: 'string' } } },
        },
      },
    },
  },
};
const custom = typeViewOf({ ...builtin('Gadget'), schema }, true);

test('the field set of a configuration: leaves, keyed items with their keys, atomic selectors, map keys', () => {
  const set = fieldSetOf(
    {
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: {
          spec: {
            containers: [{ name: 'web', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }],
          },
        },
      },
    },
    deploy,
  );
  assert.deepEqual(toFieldsV1(set), {
    'f:spec': {
      'f:selector': {},
      'f:template': {
        'f:spec': {
          'f:containers': {
            'k:{"name":"web"}': {
              '.': {},
              'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
              'f:name': {},
              'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
            },
          },
        },
      },
    },
  });
  const owned = fieldSetOf(
    { metadata: { ownerReferences: [{ uid: 'u1', kind: 'ReplicaSet', name: 'rs' }], finalizers: ['f'] } },
    typeViewOf(builtin('Pod'), false),
  );
  assert.deepEqual(toFieldsV1(owned), {
    'f:metadata': { 'f:finalizers': { 'v:"f"': {} }, 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } },
  });
  const cr = fieldSetOf(
    { spec: { parts: [{ name: 'p' }], tags: ['t'], args: ['x'], extra: { k: { v: '1' } } } },
    custom,
  );
  assert.deepEqual(toFieldsV1(cr), {
    'f:spec': {
      'f:args': {},
      'f:extra': { 'f:k': { '.': {}, 'f:v': {} } },
      'f:parts': { 'k:{"name":"p","zone":"a"}': { '.': {}, 'f:name': {} } },
      'f:tags': { 'v:"t"': {} },
    },
  });
});

test('compare: added maps own themselves, a Go zero value does not; modified and removed leaves', () => {
  const before: JsonObject = { metadata: {}, spec: { replicas: 1, paused: true } };
  const after: JsonObject = {
    metadata: { labels: { a: 'b' } },
    spec: { replicas: 2, strategy: { rollingUpdate: { maxSurge: 1 } } },
  };
  const c = compare(before, after, deploy);
  assert.deepEqual(toFieldsV1(c.added), {
    'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
    'f:spec': { 'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {} } } },
  });
  assert.deepEqual(toFieldsV1(c.modified), { 'f:spec': { 'f:replicas': {} } });
  assert.deepEqual(toFieldsV1(c.removed), { 'f:spec': { 'f:paused': {} } });
  const same = compare(after, after, deploy);
  assert.ok(same.added.isEmpty() && same.modified.isEmpty() && same.removed.isEmpty());
});

test('merge: keyed lists by key in the order the API server keeps, sets by value, atomic lists replaced', () => {
  const live: JsonObject = {
    spec: {
      parts: [{ name: 'a' }, { name: 'b', n: 1 }, { name: 'c' }],
      tags: ['x', 'y'],
      args: ['1', '2'],
    },
  };
  const out = mergeApplied(
    live,
    {
      spec: {
        parts: [
          { name: 'c', n: 3 },
          { name: 'a', n: 4 },
        ],
        tags: ['z', 'x'],
        args: ['3'],
      },
    },
    custom,
  );
  assert.deepEqual(out.spec, {
    parts: [
      { name: 'b', n: 1 },
      { name: 'c', n: 3 },
      { name: 'a', n: 4 },
    ],
    tags: ['z', 'x', 'y'],
    args: ['3'],
  });
  const inserted = mergeApplied(
    { spec: { parts: [{ name: 'a' }, { name: 'b' }] } },
    { spec: { parts: [{ name: 'a' }, { name: 'x' }, { name: 'b' }] } },
    custom,
  );
  assert.deepEqual(inserted.spec, { parts: [{ name: 'a' }, { name: 'x' }, { name: 'b' }] });
  assert.deepEqual(mergeApplied({ spec: { a: 1, b: 2 } }, { spec: { a: null } }, custom), { spec: { b: 2 } });
});

test('removal: members go whole, keyed items by key; named parents of what goes become members', () => {
  const obj: JsonObject = { spec: { parts: [{ name: 'a' }, { name: 'b' }], tags: ['x', 'y'], keep: 1 } };
  const gone = fieldSetOf({ spec: { parts: [{ name: 'a' }], tags: ['y'] } }, custom);
  assert.deepEqual(removeFields(obj, gone, custom), {
    spec: { parts: [{ name: 'b' }], tags: ['x'], keep: 1 },
  });
  const named = withNamedParents(
    fieldSetOf({ spec: { args: ['1'], extra: { k: { v: '1' } } } }, custom),
    custom,
  );
  assert.deepEqual(toFieldsV1(named), {
    'f:spec': { '.': {}, 'f:args': {}, 'f:extra': { '.': {}, 'f:k': { '.': {}, 'f:v': {} } } },
  });
});
