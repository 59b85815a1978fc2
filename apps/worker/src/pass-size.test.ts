import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_POD_WRITES_PER_PASS, podWritesPerPass } from './pass-size.ts';

test('a pass plans what the client rate limit sends in about two seconds, at most burstReplicas', () => {
  assert.equal(podWritesPerPass(50), 100, 'the default KUBE_QPS: a status write every ~2 s of a scale');
  assert.equal(podWritesPerPass(5), 10);
  assert.equal(podWritesPerPass(0.2), 1, 'never none');
  assert.equal(podWritesPerPass(1000), MAX_POD_WRITES_PER_PASS);
  assert.equal(podWritesPerPass(0), MAX_POD_WRITES_PER_PASS, 'no limit');
});
