import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickNode, podAction, type PodView } from './plan.ts';

const mine = new Set(['agent-node-1', 'agent-node-2']);
const pod = (
  o: Partial<{ nodeName: string; deleting: boolean; phase: string; scheduler: string }> = {},
): PodView => ({
  metadata: {
    name: 'p',
    namespace: 'default',
    uid: 'u',
    ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: {
    ...(o.nodeName !== undefined ? { nodeName: o.nodeName } : {}),
    ...(o.scheduler ? { schedulerName: o.scheduler } : {}),
  },
  ...(o.phase ? { status: { phase: o.phase } } : {}),
});

test('an unscheduled pod of the default scheduler is bound; one of another scheduler is not', () => {
  assert.equal(podAction(pod(), mine), 'bind');
  assert.equal(podAction(pod({ nodeName: '' }), mine), 'bind');
  assert.equal(podAction(pod({ scheduler: 'default-scheduler' }), mine), 'bind');
  assert.equal(podAction(pod({ scheduler: 'volcano' }), mine), 'ignore');
});

test('an unscheduled pod being deleted or finished is not bound', () => {
  assert.equal(podAction(pod({ deleting: true }), mine), 'ignore');
  assert.equal(podAction(pod({ phase: 'Failed' }), mine), 'ignore');
});

test("the agent's node: run it, or finish its deletion; another node's pod is left alone", () => {
  assert.equal(podAction(pod({ nodeName: 'agent-node-2' }), mine), 'run');
  assert.equal(podAction(pod({ nodeName: 'agent-node-2', phase: 'Succeeded' }), mine), 'run');
  assert.equal(podAction(pod({ nodeName: 'agent-node-1', deleting: true }), mine), 'terminate');
  assert.equal(podAction(pod({ nodeName: 'kind-worker' }), mine), 'ignore');
  assert.equal(podAction(pod({ nodeName: 'kind-worker', deleting: true }), mine), 'ignore');
});

test('pickNode: the least loaded node with room; none when all are full', () => {
  const load = new Map([
    ['a', 3],
    ['b', 1],
    ['c', 2],
  ]);
  assert.equal(pickNode(load, 10), 'b');
  assert.equal(pickNode(load, 2), 'b');
  assert.equal(pickNode(new Map([['a', 2]]), 2), undefined);
  assert.equal(pickNode(new Map(), 2), undefined);
});
