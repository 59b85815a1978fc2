// The converge bench's count of what pods cost a watcher: events per pod, and the kubelet side's status
// writes (every MODIFIED event but the binding).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObj } from '../../bench/lib/client.ts';
import { PodEventCounter } from '../../bench/lib/pod-events.ts';
import { simOptionsFor } from '../../bench/lib/pod-runner.ts';

const pod = (name: string, nodeName?: string): KubeObj => ({
  metadata: { name },
  ...(nodeName !== undefined ? { spec: { nodeName } } : {}),
});

test('a kubelet-paced pod: created, bound, two status writes; a pod created bound had no binding', () => {
  const counter = new PodEventCounter();
  counter.onPod('ADDED', pod('a'));
  counter.onPod('MODIFIED', pod('a', 'n1'));
  counter.onPod('MODIFIED', pod('a', 'n1'));
  counter.onPod('MODIFIED', pod('a', 'n1'));
  counter.onPod('ADDED', pod('b', 'n2'));
  counter.onPod('MODIFIED', pod('b', 'n2'));
  assert.deepEqual(counter.counts(), { pods: 2, events: 6, bindings: 1, statusWrites: 3 });
});

test("who runs the pods: kube-sim's kubelet lifecycle and the node agent on as many nodes; fast as before", () => {
  assert.deepEqual(simOptionsFor('kubelet'), { lifecycle: 'kubelet', nodes: 100 });
  assert.deepEqual(simOptionsFor('node-agent'), { nodeAgent: { nodes: 100 } });
  assert.deepEqual(simOptionsFor('fast'), { lifecycle: 'fast' });
});
