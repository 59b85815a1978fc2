import type { KubeConfig } from '@kubernetes/client-node';
import { CONTROLLER_REVISIONS, EVENTS, LEASES, PODS, PODSETS, ResourceClient } from './client.ts';
import { KubeClient, type KubeClientOptions } from './transport.ts';
import type { ControllerRevision, CoreEvent, Lease, Pod, PodSet } from './types.ts';

/** The operator's view of the API: one rate-limited client and the resources it touches. */
export interface Kube {
  client: KubeClient;
  podSets: ResourceClient<PodSet>;
  pods: ResourceClient<Pod>;
  events: ResourceClient<CoreEvent>;
  leases: ResourceClient<Lease>;
  /** A PodSet's template history (apps/v1), one per template it ran. */
  controllerRevisions: ResourceClient<ControllerRevision>;
}

export function createKube(
  kubeConfig: KubeConfig,
  options: Omit<KubeClientOptions, 'kubeConfig'> = {},
): Kube {
  const client = new KubeClient({ ...options, kubeConfig });
  return {
    client,
    podSets: new ResourceClient<PodSet>(client, PODSETS),
    pods: new ResourceClient<Pod>(client, PODS),
    events: new ResourceClient<CoreEvent>(client, EVENTS),
    leases: new ResourceClient<Lease>(client, LEASES),
    controllerRevisions: new ResourceClient<ControllerRevision>(client, CONTROLLER_REVISIONS),
  };
}
