// Acceptance: the real kubectl against kube-sim — a ServiceAccount token and what its Role allows. Each step
// asserts on kubectl's output AND on the server's state.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeSim } from '../../src/index.ts';
import { useKubectlSim } from './support.ts';

describe('kubectl against kube-sim', () => {
  const k = useKubectlSim();
  const { kubectl, ok } = k;
  let sim: KubeSim;

  before(async () => {
    sim = k.sim;
  });

  test('RBAC: a ServiceAccount token (kubectl create token) can do what its Role allows, nothing more', async () => {
    assert.equal((await ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes', 'admin can');
    await ok(['create', 'serviceaccount', 'bot']);
    const token = (await ok(['create', 'token', 'bot'])).trim();
    assert.ok(token.length > 10);
    const asBot = (args: string[]) => kubectl(['--token', token, ...args]);
    const denied = await asBot(['get', 'pods']);
    assert.equal(denied.code, 1);
    assert.match(
      denied.stderr,
      /pods is forbidden: User "system:serviceaccount:default:bot" cannot list resource "pods" in API group "" in the namespace "default"/,
    );
    assert.match((await asBot(['auth', 'can-i', 'list', 'pods'])).stdout, /^no/);
    await ok(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    await ok(['create', 'rolebinding', 'bot-reads', '--role=pod-reader', '--serviceaccount=default:bot']);
    assert.equal((await asBot(['auth', 'can-i', 'list', 'pods'])).stdout.trim(), 'yes');
    const allowed = await asBot(['get', 'pods']);
    assert.equal(allowed.code, 0, allowed.stderr);
    const write = await asBot(['create', 'configmap', 'from-bot']);
    assert.equal(write.code, 1);
    assert.match(
      write.stderr,
      /configmaps is forbidden: User "system:serviceaccount:default:bot" cannot create/,
    );
    assert.equal(sim.cluster.get('configmaps', 'default', 'from-bot'), undefined);
    const audit = sim.audit.query({ user: 'system:serviceaccount:default:bot', code: 403 });
    assert.ok(audit.length >= 2, 'the audit names the ServiceAccount');
  });
});
