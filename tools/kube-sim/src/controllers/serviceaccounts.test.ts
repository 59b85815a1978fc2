import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startControllers } from './index.ts';

test('every namespace gets a default ServiceAccount, existing or new, and gets it back if deleted', async (t) => {
  const cluster = new FakeCluster();
  cluster.create('namespaces', obj('v1', 'Namespace', 'before', undefined));
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    podLifecycle: false,
    namespaceRecheckMs: 50,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
  });
  t.after(() => controllers.stop());
  const sa = (ns: string) => cluster.get('serviceaccounts', ns, 'default');
  await until(() => sa('before') !== undefined, 5_000, 'default SA in a namespace that existed');
  cluster.create('namespaces', obj('v1', 'Namespace', 'after', undefined));
  await until(() => sa('after') !== undefined, 5_000, 'default SA in a new namespace');
  cluster.delete('serviceaccounts', 'after', 'default');
  await until(() => sa('after') !== undefined, 5_000, 'recreated after a delete');
  assert.deepEqual(errors, []);
});

test('none in a namespace being deleted, and the namespace still goes', async (t) => {
  const cluster = new FakeCluster();
  const controllers = startControllers(cluster, { podLifecycle: false, namespaceRecheckMs: 50 });
  t.after(() => controllers.stop());
  cluster.create('namespaces', obj('v1', 'Namespace', 'gone', undefined));
  await until(() => cluster.get('serviceaccounts', 'gone', 'default') !== undefined, 5_000, 'created');
  cluster.delete('namespaces', undefined, 'gone');
  await until(() => !cluster.get('namespaces', undefined, 'gone'), 10_000, 'namespace removed');
  assert.equal(cluster.get('serviceaccounts', 'gone', 'default'), undefined);
});
