// The client-side rate limit's environment variables, declared once for every app (each picks its own
// defaults: a worker writes far more than the dashboard reads).
import { int, num } from '@podset/config';

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
