import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podSet } from '../test/fixtures.ts';
import { deepFreeze } from '../test/freeze.ts';
import { DEFAULT_TEMPLATE } from './podset-schema.ts';
import { hashTemplate, rememberedTemplateHashes, templateHash } from './template-hash.ts';
import type { PodTemplateSpec } from './types.ts';

const t = (image: string, extra: Record<string, unknown> = {}): PodTemplateSpec => ({
  metadata: { labels: { tier: 'web' } },
  spec: { containers: [{ name: 'app', image }], ...extra },
});

test('the hash is 10 hex characters, a valid label value, and changes with the template', () => {
  const a = hashTemplate(t('nginx:1.27'));
  assert.match(a, /^[0-9a-f]{10}$/);
  assert.notEqual(hashTemplate(t('nginx:1.28')), a, 'another image');
  assert.notEqual(hashTemplate({ ...t('nginx:1.27'), metadata: { labels: { tier: 'api' } } }), a, 'labels');
  assert.notEqual(hashTemplate(t('nginx:1.27', { nodeSelector: { disk: 'ssd' } })), a, 'any spec field');
});

test('stable across key order and what defaulting adds or leaves out', () => {
  const a = hashTemplate(t('nginx:1.27'));
  const reordered = {
    spec: { containers: [{ image: 'nginx:1.27', name: 'app' }] },
    metadata: { labels: { tier: 'web' } },
  } as PodTemplateSpec;
  assert.equal(hashTemplate(reordered), a, 'key order');
  assert.equal(hashTemplate(t('nginx:1.27', { restartPolicy: 'Always' })), a, 'restartPolicy Always');
  assert.equal(
    hashTemplate({ metadata: { labels: { tier: 'web' }, annotations: {} }, spec: t('nginx:1.27').spec }),
    a,
    'an empty annotations map',
  );
  const bare = { spec: { containers: [{ name: 'app', image: 'x' }] } } as PodTemplateSpec;
  assert.equal(hashTemplate({ metadata: {}, ...bare }), hashTemplate(bare), 'empty metadata');
  assert.equal(hashTemplate({ metadata: { labels: {} }, ...bare }), hashTemplate(bare), 'empty labels');
});

test('a PodSet without a template hashes as one that spells out the default', () => {
  const implicit = podSet();
  delete implicit.spec!.template;
  const explicit = podSet();
  explicit.spec!.template = structuredClone(DEFAULT_TEMPLATE) as unknown as PodTemplateSpec;
  assert.equal(templateHash(implicit), templateHash(explicit));
  assert.notEqual(templateHash(implicit), templateHash(podSet()));
});

test('container order matters (it is the pod spec order)', () => {
  const two = (first: string, second: string): PodTemplateSpec => ({
    spec: {
      containers: [
        { name: first, image: 'x' },
        { name: second, image: 'y' },
      ],
    },
  });
  assert.notEqual(hashTemplate(two('a', 'b')), hashTemplate(two('b', 'a')));
});

test('a template hashed again is remembered by its content: a copy hits, one changed in place does not', () => {
  const template = t('memo:1');
  const first = hashTemplate(template);
  const remembered = rememberedTemplateHashes();
  assert.equal(hashTemplate(structuredClone(template)), first, 'an equal copy: the same hash');
  assert.equal(rememberedTemplateHashes(), remembered, '…remembered, not hashed again');
  template.spec!.containers[0]!.image = 'memo:2';
  const changed = hashTemplate(template);
  assert.notEqual(changed, first, 'the same object changed: hashed afresh');
  assert.equal(changed, hashTemplate(t('memo:2')));
  assert.equal(rememberedTemplateHashes(), remembered + 1);
});

test('a deep-frozen template is hashed by the object: made into text once, however often it is asked', () => {
  const expected = hashTemplate(t('frozen:1')); // known by its text from here on: one JSON text per hash
  let texts = 0;
  const real = JSON.stringify;
  JSON.stringify = ((...a: Parameters<typeof JSON.stringify>) => {
    texts++;
    return real(...a);
  }) as typeof JSON.stringify;
  const hashes: string[] = [];
  const thawed = t('frozen:1');
  // Frozen at the top only: what it holds can still change, so it is not remembered by the object.
  const shallow = Object.freeze(t('frozen:1'));
  try {
    const frozen = deepFreeze(t('frozen:1'));
    for (let i = 0; i < 5; i++) hashes.push(hashTemplate(frozen));
    assert.equal(texts, 1, 'five hashes of one deep-frozen template: its text made once');
    texts = 0;
    for (let i = 0; i < 3; i++) hashTemplate(thawed);
    for (let i = 0; i < 3; i++) hashTemplate(shallow);
    assert.equal(texts, 6, 'a template that can change is made into text on every hash');
  } finally {
    JSON.stringify = real;
  }
  assert.deepEqual(new Set(hashes), new Set([expected]));
  shallow.spec!.containers[0]!.image = 'frozen:2';
  assert.equal(
    hashTemplate(shallow),
    hashTemplate(t('frozen:2')),
    'changed beneath its frozen top: new hash',
  );
});
