import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeCluster } from './fake-cluster.ts';
import { ensureNodes } from './nodes.ts';

const options = { count: 3, namePrefix: 'sim-node-', kubeletVersion: 'v1.32.0' };

test('ensureNodes creates Ready nodes with capacity, addresses and nodeInfo', () => {
  const cluster = new FakeCluster();
  assert.deepEqual(ensureNodes(cluster, options), ['sim-node-1', 'sim-node-2', 'sim-node-3']);
  const nodes = cluster.list('nodes');
  assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), ['sim-node-1', 'sim-node-2', 'sim-node-3']);
  const addresses = new Set<string>();
  for (const n of nodes) {
    const status = n.status as {
      conditions: { type: string; status: string }[];
      capacity: Record<string, string>;
      allocatable: Record<string, string>;
      addresses: { type: string; address: string }[];
      nodeInfo: { kubeletVersion: string; operatingSystem: string };
    };
    assert.equal(status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(status.conditions.find((c) => c.type === 'MemoryPressure')?.status, 'False');
    assert.equal(status.capacity.pods, '110');
    assert.ok(status.allocatable.cpu);
    assert.match(status.nodeInfo.kubeletVersion, /^v1\.32\./);
    assert.equal(status.nodeInfo.operatingSystem, 'linux');
    const ip = status.addresses.find((a) => a.type === 'InternalIP')?.address;
    assert.ok(ip);
    addresses.add(ip);
    assert.equal(n.metadata.labels?.['kubernetes.io/hostname'], n.metadata.name);
  }
  assert.equal(addresses.size, 3, 'each node has its own InternalIP');
});

test('ensureNodes leaves existing nodes alone (restart with the store kept)', () => {
  const cluster = new FakeCluster();
  ensureNodes(cluster, options);
  const writes = cluster.writes.length;
  const before = cluster.list('nodes').map((n) => n.metadata.resourceVersion);
  ensureNodes(cluster, { ...options, count: 4 });
  assert.deepEqual(
    cluster
      .list('nodes')
      .slice(0, 3)
      .map((n) => n.metadata.resourceVersion),
    before,
  );
  assert.equal(cluster.count('nodes'), 4);
  assert.equal(cluster.writes.length, writes + 2, 'one create and one status write for the new node only');
});
