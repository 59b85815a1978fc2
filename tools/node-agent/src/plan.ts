// What the agent does with a pod it sees: bind it (the scheduler's part), run it or finish its deletion (a
// kubelet's part, for pods on the agent's nodes), or leave it alone. Pure.

export interface PodView {
  metadata: { name?: string; namespace?: string; uid?: string; deletionTimestamp?: unknown };
  spec?: { nodeName?: string; schedulerName?: string };
  status?: { phase?: string };
}

export type PodAction =
  /** Unscheduled, for the default scheduler: bind it to one of the agent's nodes. */
  | 'bind'
  /** On one of the agent's nodes, not being deleted: start it, or follow it if it is under way. */
  | 'run'
  /** On one of the agent's nodes and being deleted: remove it once its containers have stopped. */
  | 'terminate'
  /** Another node's pod, another scheduler's, a finished unbound one, or one being deleted before binding. */
  | 'ignore';

const DEFAULT_SCHEDULER = 'default-scheduler';

export function isTerminal(pod: PodView): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

export function podAction(pod: PodView, nodes: ReadonlySet<string>): PodAction {
  const nodeName = pod.spec?.nodeName;
  if (nodeName !== undefined && nodeName !== '') {
    if (!nodes.has(nodeName)) return 'ignore';
    return pod.metadata.deletionTimestamp !== undefined ? 'terminate' : 'run';
  }
  if (pod.metadata.deletionTimestamp !== undefined || isTerminal(pod)) return 'ignore';
  const scheduler = pod.spec?.schedulerName;
  return scheduler === undefined || scheduler === '' || scheduler === DEFAULT_SCHEDULER ? 'bind' : 'ignore';
}

/** The node with the fewest pods that has room for one more, or undefined when all are full. */
export function pickNode(load: ReadonlyMap<string, number>, maxPods: number): string | undefined {
  let best: string | undefined;
  let bestLoad = Infinity;
  for (const [name, n] of load) {
    if (n < maxPods && n < bestLoad) {
      best = name;
      bestLoad = n;
    }
  }
  return best;
}
