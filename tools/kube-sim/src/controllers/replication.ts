// ReplicationController controller, as kube-controller-manager's replication manager: each
// ReplicationController keeps spec.replicas active pods of its template (created with a controller
// ownerReference to it; the garbage collector removes them once it is gone), adopts orphan pods its
// selector matches, releases pods that stop matching, and reports status.replicas, readyReplicas,
// availableReplicas (minReadySeconds), fullyLabeledReplicas and observedGeneration. The pod work is
// shared with the ReplicaSet controller (pod-replicas.ts).
import type { ClusterAccess, JsonObject, StoreEvent } from '../apimachinery/types.ts';
import { KeyedQueue } from './keyed-queue.ts';
import {
  FAILED_CREATE_RETRY_MS,
  controllerOf,
  num,
  obj,
  replicatePods,
  withReplicaFailure,
} from './pod-replicas.ts';
import { mutate, nowIso, type ErrorReporter } from './util.ts';

const RC = 'replicationcontrollers';

export interface ReplicationController {
  stop(): void;
}

export function startReplicationController(
  cluster: ClusterAccess,
  report: ErrorReporter,
): ReplicationController {
  const queue = new KeyedQueue('replication controller', report, sync);

  function sync(namespace: string, name: string): void {
    const rc = cluster.get(RC, namespace, name);
    if (rc === undefined) return;
    const spec = obj(rc.spec);
    const selector = Object.entries(obj(spec.selector));
    const minReadySeconds = num(spec.minReadySeconds, 0);
    const counts = replicatePods(
      cluster,
      { apiVersion: 'v1', kind: 'ReplicationController', object: rc },
      {
        replicas: num(spec.replicas, 1),
        template: obj(spec.template),
        // An empty selector would match every pod of the namespace: the API server refuses it, never adopt.
        matches: (labels) => selector.length > 0 && selector.every(([k, v]) => labels?.[k] === v),
        minReadySeconds,
        events: { component: 'replication-controller', report },
      },
    );
    if (counts.recheckInMs !== undefined) queue.addAfter(namespace, name, counts.recheckInMs + 5);
    if (counts.failure !== undefined) queue.addAfter(namespace, name, FAILED_CREATE_RETRY_MS);
    const conditions = withReplicaFailure(obj(rc.status).conditions, counts.failure, nowIso());
    const status: JsonObject = {
      replicas: counts.replicas,
      fullyLabeledReplicas: counts.fullyLabeledReplicas,
      ...(counts.readyReplicas > 0 ? { readyReplicas: counts.readyReplicas } : {}),
      ...(counts.availableReplicas > 0 ? { availableReplicas: counts.availableReplicas } : {}),
      observedGeneration: rc.metadata.generation ?? 1,
      ...(conditions.length ? { conditions } : {}),
    };
    if (JSON.stringify(obj(rc.status)) === JSON.stringify(status)) return;
    mutate(cluster, 'updateStatus', RC, namespace, name, rc.metadata.uid, (o) => ({ ...o, status }));
  }

  /** Events of the resources related to ours (its pods): the keys they concern. */
  function handle(event: StoreEvent): void {
    const o = event.object;
    const namespace = o.metadata.namespace ?? '';
    if (event.resource !== 'pods') return;
    const ref = controllerOf(o);
    if (ref?.kind === 'ReplicationController') queue.add(namespace, ref.name);
    else if (!ref && event.type !== 'DELETED') {
      // An orphan: the ReplicationControllers whose selector matches it may adopt it.
      for (const rc of cluster.list(RC, namespace)) {
        const sel = Object.entries(obj(obj(rc.spec).selector));
        if (sel.length > 0 && sel.every(([k, v]) => o.metadata.labels?.[k] === v))
          queue.add(namespace, rc.metadata.name ?? '');
      }
    }
  }

  return queue.run(cluster, RC, handle);
}
