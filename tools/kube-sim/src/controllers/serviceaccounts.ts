// ServiceAccount controller, as kube-controller-manager's: every active namespace has a ServiceAccount
// named `default` (pods run as it unless they name another). Created for each namespace that exists or
// appears, and again if someone deletes it; never in a namespace being deleted.
import type { ClusterAccess, KubeObject, StoreEvent } from '../apimachinery/types.ts';
import { WorkQueue, isApiError, subscribeQueued, type ErrorReporter } from './util.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export interface ServiceAccountController {
  stop(): void;
}

export function startServiceAccountController(
  cluster: ClusterAccess,
  report: ErrorReporter,
): ServiceAccountController {
  const queue = new WorkQueue('serviceaccount controller', report);

  function ensure(namespace: string): void {
    const ns = cluster.get('namespaces', undefined, namespace);
    if (ns === undefined || ns.metadata.deletionTimestamp !== undefined) return;
    if (cluster.get('serviceaccounts', namespace, DEFAULT_SERVICE_ACCOUNT) !== undefined) return;
    try {
      cluster.create('serviceaccounts', {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace },
      } as KubeObject);
    } catch (err) {
      // Created meanwhile (409), or the namespace started terminating (403): nothing to do.
      if (!isApiError(err, 409) && !isApiError(err, 403)) throw err;
    }
  }

  function handle(event: StoreEvent): void {
    const o = event.object;
    if (event.resource === 'namespaces' && event.type !== 'DELETED') ensure(o.metadata.name ?? '');
    else if (
      event.resource === 'serviceaccounts' &&
      event.type === 'DELETED' &&
      o.metadata.name === DEFAULT_SERVICE_ACCOUNT
    ) {
      ensure(o.metadata.namespace ?? '');
    }
  }

  const unsubscribe = subscribeQueued(cluster, queue, handle);
  for (const ns of cluster.list('namespaces')) {
    const name = ns.metadata.name ?? '';
    queue.push(() => ensure(name));
  }
  return {
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}
