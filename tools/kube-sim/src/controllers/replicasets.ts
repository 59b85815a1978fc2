// ReplicaSet controller, as kube-controller-manager's: each ReplicaSet keeps spec.replicas (default 1)
// active pods of its template, named `<replicaset>-<random>`, with a controller ownerReference
// (blockOwnerDeletion) to it; adopts orphan pods its selector matches and releases those that stop
// matching; reports status.replicas, fullyLabeledReplicas, readyReplicas, availableReplicas (Ready for
// minReadySeconds) and observedGeneration. The pod work is shared with the ReplicationController
// controller (pod-replicas.ts).
import type { ClusterAccess, JsonObject, KubeObject, StoreEvent } from '../apimachinery/types.ts';
import { KeyedQueue } from './keyed-queue.ts';
import {
  FAILED_CREATE_RETRY_MS,
  controllerOf,
  num,
  obj,
  replicatePods,
  selectorMatcher,
  withReplicaFailure,
} from './pod-replicas.ts';
import { mutate, nowIso, type ErrorReporter } from './util.ts';

export const REPLICASETS = 'replicasets.apps';

export interface ReplicaSetController {
  stop(): void;
}

/** The status a ReplicaSet reports, zero counts left out as the API's omitempty does. */
export function replicaSetStatus(
  rs: KubeObject,
  counts: {
    replicas: number;
    fullyLabeledReplicas: number;
    readyReplicas: number;
    availableReplicas: number;
  },
): JsonObject {
  const status: JsonObject = { replicas: counts.replicas };
  if (counts.fullyLabeledReplicas > 0) status.fullyLabeledReplicas = counts.fullyLabeledReplicas;
  if (counts.readyReplicas > 0) status.readyReplicas = counts.readyReplicas;
  if (counts.availableReplicas > 0) status.availableReplicas = counts.availableReplicas;
  status.observedGeneration = rs.metadata.generation ?? 1;
  const conditions = obj(rs.status).conditions;
  if (Array.isArray(conditions) && conditions.length) status.conditions = conditions;
  return status;
}

export function startReplicaSetController(
  cluster: ClusterAccess,
  report: ErrorReporter,
): ReplicaSetController {
  const queue = new KeyedQueue('replicaset controller', report, sync);

  function sync(namespace: string, name: string): void {
    const rs = cluster.get(REPLICASETS, namespace, name);
    if (rs === undefined) return;
    const spec = obj(rs.spec);
    const counts = replicatePods(
      cluster,
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', object: rs },
      {
        replicas: num(spec.replicas, 1),
        template: obj(spec.template),
        matches: selectorMatcher(spec.selector),
        minReadySeconds: num(spec.minReadySeconds, 0),
        events: { component: 'replicaset-controller', report },
      },
    );
    if (counts.recheckInMs !== undefined) queue.addAfter(namespace, name, counts.recheckInMs + 5);
    if (counts.failure !== undefined) queue.addAfter(namespace, name, FAILED_CREATE_RETRY_MS);
    const conditions = withReplicaFailure(obj(rs.status).conditions, counts.failure, nowIso());
    const status = replicaSetStatus({ ...rs, status: { ...obj(rs.status), conditions } }, counts);
    if (JSON.stringify(obj(rs.status)) === JSON.stringify(status)) return;
    mutate(cluster, 'updateStatus', REPLICASETS, namespace, name, rs.metadata.uid, (o) => ({ ...o, status }));
  }

  /** Events of the resources related to ours (its pods): the keys they concern. */
  function handle(event: StoreEvent): void {
    const o = event.object;
    const namespace = o.metadata.namespace ?? '';
    if (event.resource !== 'pods') return;
    const ref = controllerOf(o);
    if (ref) {
      if (ref.kind === 'ReplicaSet') queue.add(namespace, ref.name);
    } else if (event.type !== 'DELETED') {
      // An orphan: the ReplicaSets whose selector matches it may adopt it.
      for (const rs of cluster.list(REPLICASETS, namespace)) {
        if (selectorMatcher(obj(rs.spec).selector)(o.metadata.labels))
          queue.add(namespace, rs.metadata.name ?? '');
      }
    }
  }

  return queue.run(cluster, REPLICASETS, handle);
}
