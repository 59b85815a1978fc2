// kube-sim's REST semantics over HTTP: table output for kubectl get.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pod, useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('table output: pods NAME READY STATUS RESTARTS AGE, others NAME AGE', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('tbl'));
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    const t = await call('GET', '/api/v1/namespaces/default/pods/tbl', undefined, accept);
    assert.deepEqual(
      t.body.columnDefinitions
        .filter((c: { priority: number }) => c.priority === 0)
        .map((c: { name: string }) => c.name),
      ['Name', 'Ready', 'Status', 'Restarts', 'Age'],
    );
    assert.deepEqual(t.body.rows[0].cells.slice(0, 4), ['tbl', '0/1', 'Pending', 0]);
    assert.equal(t.body.rows[0].object.kind, 'PartialObjectMetadata');
    const l = await call('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases', undefined, accept);
    assert.ok(l.body.columnDefinitions.length >= 2);
    const svc = await call('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'svc' },
      spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80 }] },
    });
    assert.match(svc.body.spec.clusterIP, /^10\.96\.\d+\.\d+$/);
    assert.equal(svc.body.spec.ports[0].targetPort, 80);
    assert.ok(svc.body.spec.ports[0].nodePort >= 30000);
    const st = await call('GET', '/api/v1/namespaces/default/services/svc', undefined, accept);
    assert.deepEqual(st.body.rows[0].cells.slice(0, 5), [
      'svc',
      'NodePort',
      svc.body.spec.clusterIP,
      '<none>',
      `80:${svc.body.spec.ports[0].nodePort}/TCP`,
    ]);
    const sa = await call('GET', '/api/v1/namespaces/default/serviceaccounts', undefined, accept);
    assert.deepEqual(
      sa.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Age'],
    );
  });
});
