export { loadKubeConfig, allowPlainHttp, kubeConfigFor, type LoadKubeConfigOptions } from './kubeconfig.ts';
export { onKubeConfigReload, type KubeConfigReload } from './kubeconfig-reload.ts';
export { RateLimiter, type RateLimiterOptions, type RateLimiterStats } from './rate-limiter.ts';
export { KubeApiError, isKubeApiError, isNotFound, isConflict } from './errors.ts';
export {
  KubeClient,
  resourceOfPath,
  type Verb,
  type RequestRecord,
  type KubeClientOptions,
  type RequestOptions,
  type StreamOptions,
} from './transport.ts';
export {
  ResourceClient,
  resourcePath,
  PODS,
  PODSETS,
  EVENTS,
  LEASES,
  CONTROLLER_REVISIONS,
  type ResourceRef,
  type ListOptions,
  type WatchOptions,
  type DeleteOptions,
  type PatchType,
} from './client.ts';
export { createKube, type Kube } from './kube.ts';
export { ProtobufDecodeError } from './protobuf-reader.ts';
export type * from './types.ts';
export { apiServerEgressEnv, kubeAccessEnv, kubeRateEnv } from './env.ts';
export {
  API_EGRESS_POLICY,
  PORT_ONLY_WARNING,
  reportApiEgress,
  unreachableMessage,
  type ApiEgressOptions,
  type ApiServerEgress,
} from './api-egress.ts';
export { ownNamespace, SERVICE_ACCOUNT_NAMESPACE_FILE } from './own-namespace.ts';
export {
  StartReachability,
  unreachableCode,
  watchApiReachability,
  type ReachabilityEvents,
  type Unreachable,
} from './reachability.ts';
export { ensureProjectionKeySecret, ensureRedisSecret } from './redis-secret.ts';
export { textWithoutManagedFields, withoutManagedFields } from './watch-line.ts';
