// The node agent confined: `--namespace` (only those namespaces' pods) and `--max-pods` (a full node takes no
// more pods; a pod waits until one leaves), against kube-sim's CLI without its own pod lifecycle.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Proc } from '@podset/testkit';
import { BareControlPlane, condition, startAgent, waitLog } from './support.ts';

describe('node agent with --namespace and --max-pods', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'node-agent-scope-'));
  let cluster: BareControlPlane;
  let agent: Proc;

  before(async () => {
    cluster = await BareControlPlane.start(dir);
    await cluster.kubectl(['create', 'namespace', 'team-a']);
    agent = startAgent(cluster, [
      '--nodes',
      '1',
      '--max-pods',
      '1',
      '--namespace',
      'team-a',
      '--startup-delay-ms',
      '0',
      '--startup-jitter-ms',
      '0',
      '--container-exit-ms',
      '0',
    ]);
    await agent.waitForLine(/"msg":"node agent ready"/, 60_000);
  });
  after(async () => {
    await agent?.stop(10_000);
    await cluster?.sim.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  });

  test('runs the pods of its namespace only, one per node at most: the next waits for room', async () => {
    const ready = { namespace: 'team-a', describe: () => agent.describe() };
    await cluster.createPod('elsewhere');
    await cluster.createPod('first', { namespace: 'team-a' });
    await cluster.waitPod('first', 'Ready', (p) => condition(p, 'Ready') === 'True', ready);

    await cluster.createPod('second', { namespace: 'team-a' });
    await waitLog(agent, 'every node is full: the pod waits', 'team-a/second');
    assert.equal((await cluster.pod('second', 'team-a')).spec.nodeName, undefined);
    // The agent has listed and watched since before 'elsewhere' existed, and acted on the pods created after it.
    assert.equal((await cluster.pod('elsewhere')).spec.nodeName, undefined);

    await cluster.kubectl(['-n', 'team-a', 'delete', 'pod', 'first', '--wait=true', '--timeout=60s']);
    const second = await cluster.waitPod('second', 'Ready', (p) => condition(p, 'Ready') === 'True', ready);
    assert.equal(second.spec.nodeName, 'agent-node-1');
  });
});
