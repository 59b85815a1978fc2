import assert from 'node:assert/strict';
import { test } from 'node:test';
import { difference, fromFieldsV1, intersection, pathString, toFieldsV1, union } from './fieldset.ts';

test('FieldsV1 round trip: "." where a node is a member with children, path elements in the server order', () => {
  const doc = {
    'f:spec': {
      'f:containers': {
        'k:{"name":"b"}': { '.': {}, 'f:image': {} },
        'k:{"name":"a"}': { '.': {}, 'f:image': {} },
      },
      'f:tags': { 'v:"y"': {}, 'v:"x"': {} },
      'f:args': { 'i:10': {}, 'i:2': {} },
    },
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  };
  const out = toFieldsV1(fromFieldsV1(doc));
  assert.equal(
    JSON.stringify(out),
    JSON.stringify({
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:args': { 'i:2': {}, 'i:10': {} },
        'f:containers': {
          'k:{"name":"a"}': { '.': {}, 'f:image': {} },
          'k:{"name":"b"}': { '.': {}, 'f:image': {} },
        },
        'f:tags': { 'v:"x"': {}, 'v:"y"': {} },
      },
    }),
  );
  assert.throws(() => fromFieldsV1({ 'x:bad': {} }));
  assert.throws(() => fromFieldsV1([]));
});

test('union, difference and intersection of field sets; members listed before deeper paths', () => {
  const a = fromFieldsV1({ 'f:spec': { 'f:replicas': {}, 'f:paused': {} }, 'f:data': { 'f:x': {} } });
  const b = fromFieldsV1({ 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:x': {} } } });
  assert.deepEqual(toFieldsV1(intersection(a, b)), { 'f:spec': { 'f:replicas': {} } });
  assert.deepEqual(toFieldsV1(difference(a, b)), { 'f:data': { 'f:x': {} }, 'f:spec': { 'f:paused': {} } });
  const u = union(a, b);
  assert.deepEqual(u.paths().map(pathString), [
    '.data.x',
    '.spec.paused',
    '.spec.replicas',
    '.spec.template.x',
  ]);
  assert.ok(difference(a, a).isEmpty());
});

test('paths print as the API server prints them in conflicts', () => {
  assert.equal(
    pathString([
      'f:spec',
      'f:containers',
      'k:{"name":"web"}',
      'f:ports',
      'k:{"containerPort":80,"protocol":"TCP"}',
    ]),
    '.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"]',
  );
  assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"a/b"']), '.metadata.finalizers[="a/b"]');
  assert.equal(pathString(['f:spec', 'f:args', 'i:3']), '.spec.args[3]');
});
