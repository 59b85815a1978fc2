import type { KubeConfig } from '@kubernetes/client-node';
import {
  EVENTS,
  KubeClient,
  LEASES,
  PODS,
  PODSETS,
  ResourceClient,
  type KubeClientOptions,
} from './client.ts';
import type { CoreEvent, Lease, Pod, PodSetWire } from './types.ts';

/** The operator's view of the API: one rate-limited client and the four resources it touches. */
export interface Kube {
  client: KubeClient;
  podSets: ResourceClient<PodSetWire>;
  pods: ResourceClient<Pod>;
  events: ResourceClient<CoreEvent>;
  leases: ResourceClient<Lease>;
}

export function createKube(
  kubeConfig: KubeConfig,
  options: Omit<KubeClientOptions, 'kubeConfig'> = {},
): Kube {
  const client = new KubeClient({ ...options, kubeConfig });
  return {
    client,
    podSets: new ResourceClient<PodSetWire>(client, PODSETS),
    pods: new ResourceClient<Pod>(client, PODS),
    events: new ResourceClient<CoreEvent>(client, EVENTS),
    leases: new ResourceClient<Lease>(client, LEASES),
  };
}
