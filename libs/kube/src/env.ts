// The Kubernetes client's environment variables, declared once for every app: where the cluster is
// (KUBECONFIG, KUBE_IN_CLUSTER), what the install's NetworkPolicy lets through to it (API_SERVER_EGRESS),
// and the client-side rate limit (each app picks its own defaults: a
// worker writes far more than the dashboard reads).
import { bool, int, num, optionalOneOf, optionalStr } from '@podset/config';

/** What the install's NetworkPolicy lets through to the API server: told at start (api-egress.ts). */
export const apiServerEgressEnv = {
  API_SERVER_EGRESS: optionalOneOf(['port-only', 'confined'] as const, {
    description:
      'Set by the install: how podset-api-server-egress limits egress to the API server (port-only: 443/6443 to any address, warned at start; confined: to its addresses); unset: not said',
  }),
} as const;

export const kubeAccessEnv = {
  KUBECONFIG: optionalStr({
    description: 'Path to a kubeconfig file; unset: in-cluster service account (or ~/.kube/config)',
  }),
  KUBE_IN_CLUSTER: bool({
    description: 'Use the in-cluster service account even if KUBECONFIG is set elsewhere',
    default: false,
  }),
  ...apiServerEgressEnv,
} as const;

export function kubeRateEnv(defaults: { qps: number; burst: number }) {
  return {
    KUBE_QPS: num({
      description: 'Client-side rate limit to the API server, requests/s (0: none)',
      default: defaults.qps,
      min: 0,
    }),
    KUBE_BURST: int({ description: 'Client-side rate limit burst', default: defaults.burst, min: 1 }),
  } as const;
}
