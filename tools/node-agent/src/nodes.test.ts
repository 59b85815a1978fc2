import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heartbeatPatch, leaseObject, microTime, nodeObject, nodeStatus, podIPOf } from './nodes.ts';

const shape = { name: 'agent-node-3', index: 3, maxPods: 50, prefix: 'agent-node-' };

test('a node: Ready with no pressure, its capacity and allocatable pods, addresses and pod CIDR', () => {
  const node = nodeObject(shape);
  assert.equal(node.metadata.labels['kubernetes.io/hostname'], 'agent-node-3');
  assert.equal(node.metadata.labels['node-agent.podset.io/agent'], 'agent-node');
  assert.equal(node.spec.podCIDR, '10.244.3.0/24');
  const status = nodeStatus(shape, '2026-01-01T00:00:00Z') as {
    conditions: { type: string; status: string }[];
    allocatable: Record<string, string>;
    addresses: { type: string; address: string }[];
  };
  assert.deepEqual(
    status.conditions.map((c) => `${c.type}=${c.status}`),
    ['MemoryPressure=False', 'DiskPressure=False', 'PIDPressure=False', 'Ready=True'],
  );
  assert.equal(status.allocatable.pods, '50');
  assert.deepEqual(status.addresses[0], { type: 'InternalIP', address: '172.30.0.3' });
});

test('pod IPs come from the node CIDR, .1 to .254', () => {
  assert.equal(podIPOf(3, 0), '10.244.3.1');
  assert.equal(podIPOf(3, 253), '10.244.3.254');
  assert.equal(podIPOf(3, 254), '10.244.3.1');
});

test('a heartbeat refreshes lastHeartbeatTime and keeps lastTransitionTime of unchanged conditions', () => {
  const before = nodeStatus(shape, '2026-01-01T00:00:00Z').conditions;
  const patch = heartbeatPatch(shape, before, '2026-01-01T00:05:00Z') as {
    status: { conditions: { type: string; lastHeartbeatTime: string; lastTransitionTime: string }[] };
  };
  for (const c of patch.status.conditions) {
    assert.equal(c.lastHeartbeatTime, '2026-01-01T00:05:00Z', c.type);
    assert.equal(c.lastTransitionTime, '2026-01-01T00:00:00Z', c.type);
  }
});

test('the Lease: held by the node, owned by it, renewTime in MicroTime', () => {
  const now = microTime(Date.UTC(2026, 0, 1, 0, 0, 1, 250));
  assert.equal(now, '2026-01-01T00:00:01.250000Z');
  const lease = leaseObject({ name: 'agent-node-3', uid: 'n-uid' }, 40, now) as {
    metadata: { namespace: string; ownerReferences: { kind: string; uid: string }[] };
    spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string };
  };
  assert.equal(lease.metadata.namespace, 'kube-node-lease');
  assert.deepEqual(
    lease.metadata.ownerReferences.map((o) => `${o.kind}/${o.uid}`),
    ['Node/n-uid'],
  );
  assert.deepEqual(lease.spec, { holderIdentity: 'agent-node-3', leaseDurationSeconds: 40, renewTime: now });
});
