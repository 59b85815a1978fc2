import assert from 'node:assert/strict';
import { test } from 'node:test';
import { httpHostOf } from './http-host.ts';

test('HTTP_HOST wins; unset, 127.0.0.1 outside a cluster and 0.0.0.0 in a pod', () => {
  assert.equal(httpHostOf('10.0.0.5', { KUBERNETES_SERVICE_HOST: '10.96.0.1' }), '10.0.0.5');
  assert.equal(httpHostOf(undefined, {}), '127.0.0.1');
  assert.equal(httpHostOf(undefined, { KUBERNETES_SERVICE_HOST: '' }), '127.0.0.1');
  assert.equal(httpHostOf(undefined, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }), '0.0.0.0');
});
