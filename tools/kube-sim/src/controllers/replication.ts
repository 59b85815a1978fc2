// ReplicationController controller, as kube-controller-manager's replication manager: each
// ReplicationController keeps spec.replicas active pods of its template (created with a controller
// ownerReference to it; the garbage collector removes them once it is gone) and reports status.replicas,
// readyReplicas, availableReplicas, fullyLabeledReplicas and observedGeneration. Surplus pods go
// youngest first. Not done: adopting orphan pods that match the selector, minReadySeconds.
import type { ClusterAccess, JsonObject, KubeObject, StoreEvent } from '../types.ts';
import { isTerminal } from './pod-status.ts';
import { WorkQueue, isApiError, mutate, subscribeQueued, type ErrorReporter } from './util.ts';

const RC = 'replicationcontrollers';

export interface ReplicationController {
  stop(): void;
}

const obj = (v: unknown): JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};

function ownerUid(pod: KubeObject): string | undefined {
  const ref = pod.metadata.ownerReferences?.find((r) => r.controller === true);
  return ref?.kind === 'ReplicationController' ? ref.uid : undefined;
}

const isReady = (pod: KubeObject): boolean =>
  Array.isArray(obj(pod.status).conditions) &&
  (obj(pod.status).conditions as JsonObject[]).some((c) => c.type === 'Ready' && c.status === 'True');

export function startReplicationController(
  cluster: ClusterAccess,
  report: ErrorReporter,
): ReplicationController {
  const queue = new WorkQueue('replication controller', report);
  const queued = new Set<string>();

  function enqueue(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    if (queued.has(key)) return;
    queued.add(key);
    queue.push(() => {
      queued.delete(key);
      sync(namespace, name);
    });
  }

  function sync(namespace: string, name: string): void {
    const rc = cluster.get(RC, namespace, name);
    if (rc === undefined || rc.metadata.deletionTimestamp !== undefined) return;
    const spec = obj(rc.spec);
    const want = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const selector = obj(spec.selector);
    const mine = cluster.list('pods', namespace).filter((p) => ownerUid(p) === rc.metadata.uid);
    const active = mine.filter((p) => p.metadata.deletionTimestamp === undefined && !isTerminal(p));
    if (active.length < want) {
      const template = obj(spec.template);
      const meta = obj(template.metadata);
      for (let i = active.length; i < want; i++) {
        cluster.create('pods', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            generateName: `${name}-`,
            namespace,
            labels: obj(meta.labels) as Record<string, string>,
            ...(meta.annotations ? { annotations: obj(meta.annotations) as Record<string, string> } : {}),
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'ReplicationController',
                name,
                uid: rc.metadata.uid ?? '',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec: obj(template.spec),
        } as KubeObject);
      }
    } else if (active.length > want) {
      const youngestFirst = [...active].sort((a, b) =>
        String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)),
      );
      for (const p of youngestFirst.slice(0, active.length - want)) {
        try {
          cluster.delete('pods', namespace, p.metadata.name ?? '');
        } catch (err) {
          if (!isApiError(err, 404)) throw err;
        }
      }
    }
    const labelled = active.filter((p) =>
      Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v),
    ).length;
    const ready = active.filter(isReady).length;
    const status: JsonObject = {
      replicas: active.length,
      fullyLabeledReplicas: labelled,
      ...(ready > 0 ? { readyReplicas: ready, availableReplicas: ready } : {}),
      observedGeneration: rc.metadata.generation ?? 1,
    };
    if (JSON.stringify(obj(rc.status)) === JSON.stringify(status)) return;
    mutate(cluster, 'updateStatus', RC, namespace, name, rc.metadata.uid, (o) => ({ ...o, status }));
  }

  function handle(event: StoreEvent): void {
    const o = event.object;
    if (event.resource === RC) {
      if (event.type !== 'DELETED') enqueue(o.metadata.namespace ?? '', o.metadata.name ?? '');
      return;
    }
    if (event.resource !== 'pods' || ownerUid(o) === undefined) return;
    const ref = o.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ref) enqueue(o.metadata.namespace ?? '', ref.name);
  }

  const unsubscribe = subscribeQueued(cluster, queue, handle);
  for (const rc of cluster.list(RC)) enqueue(rc.metadata.namespace ?? '', rc.metadata.name ?? '');
  return {
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}
