// The OwnerReferencesPermissionEnforcement admission plugin: a service account that may create pods but not
// update its owner's finalizers cannot create a pod that blocks the owner's deletion; the rule fixes it;
// without the plugin nothing is checked.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { type KubeSim, startKubeSim } from '../src/index.ts';

const run = promisify(execFile);
let sim: KubeSim;
let plain: KubeSim;

async function call(s: KubeSim, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(s.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const admin = (s: KubeSim, method: string, path: string, body?: unknown) =>
  call(s, s.tokens.admin as string, method, path, body);

/** A service account `owner-test` in default that may create, delete and patch pods (and nothing else). */
async function podCreator(s: KubeSim): Promise<string> {
  await admin(s, 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'owner-test' } });
  await admin(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
    metadata: { name: 'pods' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'patch', 'get'] }],
  });
  await admin(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
    metadata: { name: 'owner-test-pods' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' },
    subjects: [{ kind: 'ServiceAccount', name: 'owner-test', namespace: 'default' }],
  });
  const r = await admin(s, 'POST', '/api/v1/namespaces/default/serviceaccounts/owner-test/token', {
    spec: { expirationSeconds: 600 },
  });
  return (r.body.status as { token: string }).token;
}

function pod(name: string, ownerUid: string, blockOwnerDeletion: boolean, kind = 'ConfigMap') {
  return {
    metadata: {
      name,
      ownerReferences: [
        { apiVersion: 'v1', kind, name: 'owner', uid: ownerUid, controller: true, blockOwnerDeletion },
      ],
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

let ownerUid = '';
before(async () => {
  [sim, plain] = await Promise.all([
    startKubeSim({ controllers: false, admissionPlugins: ['OwnerReferencesPermissionEnforcement'] }),
    startKubeSim({ controllers: false }),
  ]);
  const cm = await admin(sim, 'POST', '/api/v1/namespaces/default/configmaps', {
    metadata: { name: 'owner' },
  });
  ownerUid = String((cm.body.metadata as { uid: string }).uid);
});
after(async () => {
  await Promise.all([sim?.close(), plain?.close()]);
});

test('blockOwnerDeletion=true needs update on the owner’s finalizers subresource', async () => {
  const token = await podCreator(sim);
  const refused = await call(sim, token, 'POST', '/api/v1/namespaces/default/pods', pod('a', ownerUid, true));
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(
    String(refused.body.message),
    /^pods "a" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: .*cannot update resource "configmaps\/finalizers"/,
  );
  // A reference that does not block needs no more than the right to delete the pod.
  const free = await call(sim, token, 'POST', '/api/v1/namespaces/default/pods', pod('b', ownerUid, false));
  assert.equal(free.status, 201, JSON.stringify(free.body));
  // Turning blocking on later (a patch) is checked as well.
  const patched = await fetch(`${sim.url}/api/v1/namespaces/default/pods/b`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify(pod('b', ownerUid, true)),
  });
  assert.equal(patched.status, 403);

  // The grant the plugin asks for, limited to the owner's name, as an operator's ClusterRole would give.
  await admin(sim, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
    metadata: { name: 'owner-finalizers' },
    rules: [
      { apiGroups: [''], resources: ['configmaps/finalizers'], resourceNames: ['owner'], verbs: ['update'] },
    ],
  });
  await admin(sim, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
    metadata: { name: 'owner-test-finalizers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'owner-finalizers' },
    subjects: [{ kind: 'ServiceAccount', name: 'owner-test', namespace: 'default' }],
  });
  const created = await call(sim, token, 'POST', '/api/v1/namespaces/default/pods', pod('a', ownerUid, true));
  assert.equal(created.status, 201, JSON.stringify(created.body));

  // An owner kind the server does not serve cannot be mapped to a resource to check.
  const unmapped = await call(
    sim,
    token,
    'POST',
    '/api/v1/namespaces/default/pods',
    pod('c', ownerUid, true, 'NoSuchKind'),
  );
  assert.equal(unmapped.status, 403);
  assert.match(String(unmapped.body.message), /cannot find RESTMapping for APIVersion v1 Kind NoSuchKind/);

  // kubectl asks the same question through a SelfSubjectAccessReview.
  const canI = (...args: string[]) =>
    run('kubectl', ['--kubeconfig', sim.kubeconfigPath, '--token', token, 'auth', 'can-i', ...args]).then(
      (r) => r.stdout.trim(),
      (e: { stdout?: string }) => String(e.stdout ?? '').trim(),
    );
  assert.equal(await canI('update', 'configmaps/owner', '--subresource=finalizers', '-n', 'default'), 'yes');
  assert.match(
    await canI('update', 'configmaps/owner', '-n', 'default'),
    /^no/,
    'finalizers, not the object',
  );
  assert.match(await canI('update', 'configmaps/other', '--subresource=finalizers', '-n', 'default'), /^no/);
});

test('ownerReferences need the right to delete the object; admins are not limited', async () => {
  await admin(sim, 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'creator' } });
  await admin(sim, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
    metadata: { name: 'create-only' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['create'] }],
  });
  await admin(sim, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
    metadata: { name: 'creator' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'create-only' },
    subjects: [{ kind: 'ServiceAccount', name: 'creator', namespace: 'default' }],
  });
  const r = await admin(sim, 'POST', '/api/v1/namespaces/default/serviceaccounts/creator/token', {
    spec: {},
  });
  const token = (r.body.status as { token: string }).token;
  const refused = await call(
    sim,
    token,
    'POST',
    '/api/v1/namespaces/default/pods',
    pod('d', ownerUid, false),
  );
  assert.equal(refused.status, 403);
  assert.match(String(refused.body.message), /cannot set an ownerRef on a resource you can't delete/);
  const bare = await call(sim, token, 'POST', '/api/v1/namespaces/default/pods', {
    metadata: { name: 'd' },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  });
  assert.equal(bare.status, 201, 'no ownerReferences, nothing to check');
  const byAdmin = await admin(sim, 'POST', '/api/v1/namespaces/default/pods', pod('e', ownerUid, true));
  assert.equal(byAdmin.status, 201);
});

test('without the plugin a pod may block its owner’s deletion with only pod rights', async () => {
  const cm = await admin(plain, 'POST', '/api/v1/namespaces/default/configmaps', {
    metadata: { name: 'owner' },
  });
  const token = await podCreator(plain);
  const uid = String((cm.body.metadata as { uid: string }).uid);
  const created = await call(plain, token, 'POST', '/api/v1/namespaces/default/pods', pod('a', uid, true));
  assert.equal(created.status, 201, JSON.stringify(created.body));
});
