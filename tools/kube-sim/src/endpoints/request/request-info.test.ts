// The request info of a resource path: its parts and the verb its method names, as kube-apiserver reads them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_RESOURCE, parseResourcePath, verbOf } from './request-info.ts';

const verb = (method: string, url: string): string => {
  const u = new URL(url, 'http://x');
  const rp = parseResourcePath(u.pathname);
  assert.ok(rp, url);
  return verbOf(method, rp, u.searchParams);
};

test('a path gives group, version, namespace, resource, name and subresource', () => {
  assert.deepEqual(parseResourcePath('/apis/apps/v1/namespaces/ns/deployments/web/scale'), {
    group: 'apps',
    version: 'v1',
    namespace: 'ns',
    plural: 'deployments',
    name: 'web',
    subresource: 'scale',
    watchPrefix: false,
  });
  // A namespace's own status and finalize are the namespace's subresources, not a namespaced resource.
  assert.deepEqual(parseResourcePath('/api/v1/namespaces/ns/status'), {
    group: '',
    version: 'v1',
    namespace: undefined,
    plural: 'namespaces',
    name: 'ns',
    subresource: 'status',
    watchPrefix: false,
  });
  assert.equal(parseResourcePath('/api/v1')?.plural, undefined);
  assert.equal(parseResourcePath('/api/v1/namespaces/ns/pods/p/log/extra')?.plural, NO_RESOURCE);
  assert.equal(parseResourcePath('/apis/apps'), undefined);
  assert.equal(parseResourcePath('/version'), undefined);
});

test('the verb: get or list by the name, watch by the parameter or the /watch/ prefix', () => {
  assert.equal(verb('GET', '/api/v1/namespaces/ns/pods/p'), 'get');
  assert.equal(verb('GET', '/api/v1/namespaces/ns/pods'), 'list');
  assert.equal(verb('GET', '/api/v1/namespaces/ns/pods?watch=True'), 'watch');
  assert.equal(verb('GET', '/api/v1/namespaces/ns/pods?watch=false'), 'list');
  assert.equal(verb('GET', '/api/v1/watch/namespaces/ns/pods'), 'watch');
  assert.equal(verb('GET', '/api/v1/watch/namespaces/ns/pods/p'), 'watch');
  assert.equal(verb('DELETE', '/api/v1/watch/namespaces/ns/pods/p'), 'watch');
  assert.equal(verb('POST', '/api/v1/namespaces/ns/pods'), 'create');
  assert.equal(verb('PUT', '/api/v1/namespaces/ns/pods/p'), 'update');
  assert.equal(verb('PATCH', '/api/v1/namespaces/ns/pods/p'), 'patch');
  assert.equal(verb('DELETE', '/api/v1/namespaces/ns/pods/p'), 'delete');
  assert.equal(verb('DELETE', '/api/v1/namespaces/ns/pods'), 'deletecollection');
  assert.equal(verb('OPTIONS', '/api/v1/namespaces/ns/pods'), '');
  assert.equal(verb('OPTIONS', '/api/v1/watch/namespaces/ns/pods/p'), '');
});
