// The scheduler's view of the nodes: which are schedulable (Ready and not cordoned), their InternalIP,
// and how many active pods each runs, so that new pods spread over the least loaded node.
import type { Json, StoreEvent } from '../apimachinery/types.ts';
import { field } from './pod-status.ts';

/** A node without an InternalIP address reports this hostIP (minikube's default). */
const DEFAULT_HOST_IP = '192.168.49.250';

interface NodeInfo {
  name: string;
  schedulable: boolean;
  hostIP: string;
  pods: number;
}

export class NodeTracker {
  readonly #nodes = new Map<string, NodeInfo>();
  /** uid → node, for the active pods counted on a node. */
  readonly #podNode = new Map<string, string>();

  get size(): number {
    return this.#nodes.size;
  }

  /** Applies a node event; true when the node is schedulable now (pods waiting for one may go). */
  onNode(event: StoreEvent): boolean {
    const name = event.object.metadata.name ?? '';
    if (event.type === 'DELETED') {
      this.#nodes.delete(name);
      return false;
    }
    const conditions = field<Json[]>(event.object.status, 'conditions');
    const ready =
      Array.isArray(conditions) &&
      conditions.some((c) => field(c, 'type') === 'Ready' && field(c, 'status') === 'True');
    const unschedulable = field<boolean>(event.object.spec, 'unschedulable') === true;
    const addresses = field<Json[]>(event.object.status, 'addresses');
    const internal = Array.isArray(addresses)
      ? addresses.find((a) => field(a, 'type') === 'InternalIP')
      : undefined;
    const info: NodeInfo = {
      name,
      schedulable: ready && !unschedulable,
      hostIP: field<string>(internal, 'address') ?? DEFAULT_HOST_IP,
      pods: this.#nodes.get(name)?.pods ?? 0,
    };
    this.#nodes.set(name, info);
    return info.schedulable;
  }

  /** The schedulable node with the fewest pods. */
  pick(): string | undefined {
    let best: NodeInfo | undefined;
    for (const n of this.#nodes.values()) if (n.schedulable && (!best || n.pods < best.pods)) best = n;
    return best?.name;
  }

  hostIP(nodeName: string): string {
    return this.#nodes.get(nodeName)?.hostIP ?? DEFAULT_HOST_IP;
  }

  assign(uid: string, nodeName: string): void {
    if (this.#podNode.has(uid)) return;
    this.#podNode.set(uid, nodeName);
    const n = this.#nodes.get(nodeName);
    if (n) n.pods++;
  }

  unassign(uid: string): void {
    const nodeName = this.#podNode.get(uid);
    if (nodeName === undefined) return;
    this.#podNode.delete(uid);
    const n = this.#nodes.get(nodeName);
    if (n) n.pods--;
  }
}
