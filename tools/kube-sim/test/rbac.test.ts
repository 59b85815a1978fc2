// Service-account tokens (TokenRequest) and the stored RBAC deciding their requests.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type KubeSim, startKubeSim } from '../src/index.ts';

let sim: KubeSim;

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(sim.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { status?: unknown } };
}

const admin = (method: string, path: string, body?: unknown) =>
  call(sim.tokens.admin as string, method, path, body);

async function tokenFor(ns: string, name: string): Promise<string> {
  await admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } });
  const r = await admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 600 },
  });
  assert.equal(r.status, 201);
  assert.equal(r.body.kind, 'TokenRequest');
  return (r.body.status as { token: string }).token;
}

before(async () => {
  sim = await startKubeSim({ controllers: false });
});
after(async () => {
  await sim.close();
});

test('a service account can do nothing until a binding grants it; grants are scoped like RBAC', async () => {
  const token = await tokenFor('default', 'bot');
  const denied = await call(token, 'GET', '/api/v1/namespaces/default/pods');
  assert.equal(denied.status, 403);
  assert.match(
    String(denied.body.message),
    /User "system:serviceaccount:default:bot" cannot list resource "pods"/,
  );
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
    metadata: { name: 'pods-read' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
  });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
    metadata: { name: 'bot-pods' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods-read' },
    subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'default' }],
  });
  assert.equal((await call(token, 'GET', '/api/v1/namespaces/default/pods')).status, 200);
  assert.equal(
    (await call(token, 'GET', '/api/v1/namespaces/kube-system/pods')).status,
    403,
    'a RoleBinding is namespaced',
  );
  assert.equal((await call(token, 'GET', '/api/v1/pods')).status, 403, 'no cluster-wide list');
  assert.equal(
    (await call(token, 'DELETE', '/api/v1/namespaces/default/pods/x')).status,
    403,
    'verb not granted',
  );
  assert.equal(
    (await call(token, 'GET', '/api/v1/namespaces/default/pods/x/status')).status,
    403,
    'subresource not granted',
  );

  // a ClusterRole bound cluster-wide, limited to names and a subresource; group subjects
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'leases' },
    rules: [
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'update'],
        resourceNames: ['lock'],
      },
      { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get'] },
    ],
  });
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'all-sas-leases' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'leases' },
    subjects: [{ kind: 'Group', name: 'system:serviceaccounts', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  assert.equal(
    (await call(token, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/lock')).status,
    404,
    'allowed (and absent)',
  );
  assert.equal(
    (await call(token, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/other')).status,
    403,
  );
  assert.equal(
    (await call(token, 'GET', '/apis/apps/v1/namespaces/default/deployments/d/scale')).status,
    404,
    'allowed (and absent)',
  );
  assert.equal((await call(token, 'GET', '/apis/apps/v1/namespaces/default/deployments/d')).status, 403);
  // discovery needs no grant
  assert.equal((await call(token, 'GET', '/apis')).status, 200);
  // the audit names the service account
  assert.ok(sim.audit.query({ user: 'system:serviceaccount:default:bot', code: 403 }).length >= 1);
});

test('SelfSubjectAccessReview answers for the caller; tokens need an existing service account', async () => {
  const token = await tokenFor('default', 'asker');
  const review = (verb: string, resource: string, namespace = 'default') =>
    call(token, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb, resource, namespace, group: '' } },
    });
  const no = await review('list', 'secrets');
  assert.equal(no.status, 201);
  assert.equal((no.body.status as { allowed: boolean }).allowed, false);
  const adminReview = await admin('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    spec: { resourceAttributes: { verb: 'delete', resource: 'pods', namespace: 'default' } },
  });
  assert.equal((adminReview.body.status as { allowed: boolean }).allowed, true);
  const missing = await admin('POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', {
    spec: {},
  });
  assert.equal(missing.status, 404);
});
