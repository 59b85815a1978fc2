export { loadKubeConfig, allowPlainHttp, type LoadKubeConfigOptions } from './kubeconfig.ts';
export { onKubeConfigReload, type KubeConfigReload } from './kubeconfig-reload.ts';
export { RateLimiter, type RateLimiterOptions, type RateLimiterStats } from './rate-limiter.ts';
export { KubeApiError, isKubeApiError, isNotFound, isConflict } from './errors.ts';
export {
  KubeClient,
  ResourceClient,
  resourcePath,
  resourceOfPath,
  PODS,
  PODSETS,
  EVENTS,
  LEASES,
  CONTROLLER_REVISIONS,
  type Verb,
  type RequestRecord,
  type KubeClientOptions,
  type RequestOptions,
  type ResourceRef,
  type ListOptions,
  type WatchOptions,
  type DeleteOptions,
  type PatchType,
} from './client.ts';
export { createKube, type Kube } from './kube.ts';
export type * from './types.ts';
export { kubeAccessEnv, kubeRateEnv } from './env.ts';
