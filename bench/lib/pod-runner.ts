// Who brings the bench's pods to life: kube-sim's kubelet lifecycle (the default: a kubelet's separate
// status writes at a kubelet's pace, what a real cluster costs a watcher), its fast lifecycle (two writes,
// no pace: the figures of earlier runs), or the node agent with kube-sim's lifecycle off (the same sequence
// from a real client, the way the bench runs against a bare control plane).
import type { SimOptions } from './cluster.ts';

export type PodRunner = 'kubelet' | 'fast' | 'node-agent';
export const POD_RUNNERS: readonly PodRunner[] = ['kubelet', 'fast', 'node-agent'];

/**
 * Nodes for the paced runners: the node agent's default, room for the bench's default size (10,000 pods)
 * at a kubelet's 110 pods each; the kubelet lifecycle gets as many, so that each node's status writes
 * queue as they would on that cluster.
 */
export const PACED_NODES = 100;

/** kube-sim's settings for `runner`. */
export function simOptionsFor(runner: PodRunner): SimOptions {
  if (runner === 'node-agent') return { nodeAgent: { nodes: PACED_NODES } };
  if (runner === 'kubelet') return { lifecycle: 'kubelet', nodes: PACED_NODES };
  return { lifecycle: 'fast' };
}

/** How a report names `runner`. */
export function describeRunner(runner: PodRunner): string {
  return runner === 'node-agent'
    ? `the node agent (${PACED_NODES} nodes; kube-sim's lifecycle off)`
    : runner === 'kubelet'
      ? `kube-sim's kubelet lifecycle (${PACED_NODES} nodes)`
      : "kube-sim's fast lifecycle";
}
