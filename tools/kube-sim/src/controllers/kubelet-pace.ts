// The pace of the simulated scheduler and kubelets: when the scheduler gets to bind a pod (one at a time,
// in order, as kube-scheduler's scheduling cycle takes one pod after another at its client's rate), when a
// node's kubelet notices that a pod's containers started, and when its status manager gets to write a pod's
// status. A kubelet notices container starts
// only at its periodic relist (each node on its own phase), and its status manager writes one status at a
// time through a rate-limited client (a GET and a PATCH per write), so the pods of one node are reported
// one after another and the pods of one workload, spread over nodes, become ready one by one. O(1) per
// call: the status manager's queue is the time its last reserved write ends.
import { nextRelistAt } from './pod-fate.ts';

export interface KubeletPaceOptions {
  /** How long the scheduler takes per pod (kube-scheduler's client: 50 requests/s by default, one per
   * binding). 0: every pod bound at once. */
  schedulerBindMs: number;
  /** How often a node's kubelet relists its containers (a kubelet's PLEG: 1 s). 0: noticed at once. */
  kubeletRelistMs: number;
  /** How long one status write occupies a node's status manager. 0: writes never wait for each other. */
  kubeletStatusWriteMs: number;
}

interface NodePace {
  /** The node's relists happen at (phase + k) × the relist period; phase in [0, 1). */
  phase: number;
  /** When the last status write reserved on this node ends. */
  freeAt: number;
}

export class KubeletPace {
  readonly #options: KubeletPaceOptions;
  readonly #random: () => number;
  readonly #nodes = new Map<string, NodePace>();
  /** When the last binding reserved ends. */
  #schedulerFreeAt = 0;

  /** `options` is read on every call (it may change while running). */
  constructor(options: KubeletPaceOptions, random: () => number) {
    this.#options = options;
    this.#random = random;
  }

  /** When the kubelet of `node` notices containers that started at `startedAt`. */
  noticed(node: string, startedAt: number): number {
    const period = this.#options.kubeletRelistMs;
    return nextRelistAt(startedAt, Math.floor(this.#node(node).phase * period), period);
  }

  /** When the scheduler binds a pod that joined its queue at `now`; the binding is queued there. */
  reserveBinding(now: number): number {
    const at = Math.max(now, this.#schedulerFreeAt);
    this.#schedulerFreeAt = at + this.#options.schedulerBindMs;
    return at;
  }

  /** When the status manager of `node` writes a status asked for at `now`; the write is queued there. */
  reserveStatusWrite(node: string, now: number): number {
    const pace = this.#node(node);
    const at = Math.max(now, pace.freeAt);
    pace.freeAt = at + this.#options.kubeletStatusWriteMs;
    return at;
  }

  #node(name: string): NodePace {
    let pace = this.#nodes.get(name);
    if (pace === undefined) {
      // A fraction of the period, so that a period changed while running keeps the nodes apart.
      pace = { phase: this.#random(), freeAt: 0 };
      this.#nodes.set(name, pace);
    }
    return pace;
  }
}
