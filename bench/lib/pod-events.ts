// What the pods of a run cost a watcher, counted from the bench's own watch of them (the same events the
// operator's watcher receives): events per pod, and the kubelet side's status writes per pod, which are
// every MODIFIED event but the binding (spec.nodeName set). kube-sim's in-process kubelet writes no audit
// entries, so the watch is the one count that holds for kube-sim's lifecycles and the node agent alike.
import type { KubeObj } from './client.ts';

export interface PodEventCounts {
  /** Pods seen. */
  pods: number;
  /** Watch events of those pods (ADDED, MODIFIED, DELETED). */
  events: number;
  /** MODIFIED events that set spec.nodeName: the scheduler's bindings. */
  bindings: number;
  /** The other MODIFIED events: status writes (nothing else writes these pods while they converge). */
  statusWrites: number;
}

export class PodEventCounter {
  readonly #bound = new Set<string>();
  readonly #seen = new Set<string>();
  #events = 0;
  #modified = 0;
  #bindings = 0;

  /** One watch event of a pod (a Tracker's onPod). */
  onPod(type: string, pod: KubeObj): void {
    const name = pod.metadata.name;
    this.#seen.add(name);
    this.#events++;
    if (type === 'MODIFIED') this.#modified++;
    const onNode = pod.spec?.nodeName !== undefined && pod.spec.nodeName !== '';
    if (!onNode || this.#bound.has(name)) return;
    this.#bound.add(name);
    // A pod created bound (ADDED shows its node) had no binding.
    if (type === 'MODIFIED') this.#bindings++;
  }

  counts(): PodEventCounts {
    return {
      pods: this.#seen.size,
      events: this.#events,
      bindings: this.#bindings,
      statusWrites: this.#modified - this.#bindings,
    };
  }
}
