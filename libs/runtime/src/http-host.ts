// Where an app's metrics and probe port listens. Outside a cluster (a developer's `npm run operator`, a
// bench) only this machine may reach /metrics and /readyz; in a cluster the kubelet and Prometheus reach
// them on the pod's address, and the manifests say so with HTTP_HOST=0.0.0.0. Without HTTP_HOST a pod
// (KUBERNETES_SERVICE_HOST set by the kubelet) still listens on every address, so a hand-written
// manifest's probes keep working.
import { optionalStr } from '@podset/config';

export const httpHostEnv = {
  HTTP_HOST: optionalStr({
    description:
      'Address the metrics/probe port (HTTP_PORT) listens on; default 127.0.0.1 outside a cluster, 0.0.0.0 in a pod (KUBERNETES_SERVICE_HOST set); k8s/ and the chart set 0.0.0.0 (compose: inside each container, where its healthchecks ask)',
  }),
} as const;

export function httpHostOf(
  configured: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string {
  if (configured !== undefined) return configured;
  return env['KUBERNETES_SERVICE_HOST'] ? '0.0.0.0' : '127.0.0.1';
}
