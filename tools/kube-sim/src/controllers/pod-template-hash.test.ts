import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, fnv32a, podTemplateHash, pruneEmpty, safeEncode } from './pod-template-hash.ts';

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx' }] },
};

test('safeEncode maps characters onto the vowel-free alphabet as rand.SafeEncodeString', () => {
  // '0' is 48 → 48 % 27 = 21 → '4'; '9' is 57 → 3 → 'f'.
  assert.equal(safeEncode('0'), '4');
  assert.equal(safeEncode('9'), 'f');
  assert.match(safeEncode('1234567890'), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
});

test('FNV-32a gives the published test vectors', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  assert.equal(fnv32a(bytes('')), 0x811c9dc5);
  assert.equal(fnv32a(bytes('a')), 0xe40c292c);
  assert.equal(fnv32a(bytes('foobar')), 0xbf9cf968);
});

test('the hash: key order, nulls and empties do not matter; the template does', () => {
  // pruneEmpty({}) is nothing: the JSON `null`, whose FNV-32a is fixed.
  assert.equal(podTemplateHash({}), podTemplateHash(null));
  const reordered = {
    spec: { containers: [{ image: 'nginx', name: 'web' }] },
    metadata: { labels: { app: 'web' } },
  };
  assert.equal(podTemplateHash(template), podTemplateHash(reordered));
  const typedClient = {
    metadata: { creationTimestamp: null, labels: { app: 'web' } },
    spec: { containers: [{ name: 'web', image: 'nginx', resources: {} }] },
  };
  assert.equal(podTemplateHash(template), podTemplateHash(typedClient));
  const other = { ...template, spec: { containers: [{ name: 'web', image: 'nginx:2' }] } };
  assert.notEqual(podTemplateHash(template), podTemplateHash(other));
  assert.match(podTemplateHash(template), /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
});

test('a collisionCount changes the hash, and each count gives another', () => {
  const seen = new Set([podTemplateHash(template)]);
  for (const n of [0, 1, 2, 3]) seen.add(podTemplateHash(template, n));
  assert.equal(seen.size, 5);
});

test('canonicalJson sorts keys at every level; pruneEmpty drops nulls and empty objects and lists', () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 'x' } }),
    '{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}',
  );
  assert.deepEqual(pruneEmpty({ a: null, b: {}, c: [], d: { e: {} }, f: 0, g: false, h: '' }), {
    f: 0,
    g: false,
    h: '',
  });
});
