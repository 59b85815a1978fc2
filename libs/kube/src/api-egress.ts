// What an app says at start about its egress to the API server, which the install's NetworkPolicy
// podset-api-server-egress limits: a warning when that limit is by port only (API_SERVER_EGRESS=port-only),
// and, when the server cannot be reached before it ever answered, one line naming that policy as the
// likely cause. The words live here so every app (and the install's Job) says the same.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@podset/log';
import { watchApiReachability, type Unreachable } from './reachability.ts';

export const API_EGRESS_POLICY = 'podset-api-server-egress';

export type ApiServerEgress = 'port-only' | 'confined';

export interface ApiEgressOptions {
  /** API_SERVER_EGRESS; undefined: not said (outside a cluster, the demo, tests). */
  egress: ApiServerEgress | undefined;
  /** The app's own namespace (own-namespace.ts); undefined outside a pod. */
  namespace: string | undefined;
  /** Two levels, which a plain line writer can mimic (the install's Job). */
  log: Pick<Logger, 'info' | 'warn'>;
}

export const PORT_ONLY_WARNING =
  `egress to the API server is limited by port only: the NetworkPolicy ${API_EGRESS_POLICY} allows TCP 443 and 6443 to any address. ` +
  'To confine it to the API server, set the chart value apiServerCIDRs, or include the kustomize component ' +
  'k8s/components/api-server-egress with its addresses (docs/install.md#network-policy)';

/** What to check, by what the policy was rendered with. */
function hint(egress: ApiServerEgress | undefined): string {
  switch (egress) {
    case 'port-only':
      return 'it allows TCP 443 and 6443 to any address: a server on another port needs that port added';
    case 'confined':
      return 'it allows only the addresses given at install (apiServerCIDRs, or the kustomize component api-server-egress): they must be the endpoints of the kubernetes Service';
    default:
      return 'it must allow the endpoints of the kubernetes Service and their port';
  }
}

/** The one line for an API server not reached at start. */
export function unreachableMessage(u: Unreachable, opts: Omit<ApiEgressOptions, 'log'>): string {
  const where =
    opts.namespace === undefined
      ? `the NetworkPolicy ${API_EGRESS_POLICY} in the operator's namespace (when running in a pod)`
      : `the NetworkPolicy ${API_EGRESS_POLICY} in namespace ${opts.namespace}`;
  return (
    `cannot reach the API server at ${u.server} (${u.code}); the likely cause is ${where}: ${hint(opts.egress)} ` +
    '(docs/install.md#network-policy)'
  );
}

/** The port-only warning now, and the unreachable line (and the reached one after it) when they happen. */
export function reportApiEgress(kc: KubeConfig, opts: ApiEgressOptions): () => void {
  if (opts.egress === 'port-only') {
    opts.log.warn({ apiServerEgress: opts.egress, networkPolicy: API_EGRESS_POLICY }, PORT_ONLY_WARNING);
  }
  return watchApiReachability(kc, {
    unreachable: (u) =>
      opts.log.warn(
        {
          server: u.server,
          code: u.code,
          err: u.error,
          networkPolicy: API_EGRESS_POLICY,
          ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
        },
        unreachableMessage(u, opts),
      ),
    reached: (r) =>
      opts.log.info(
        { server: r.server, failures: r.failures },
        `reached the API server at ${r.server} after ${r.failures} failed connection attempts`,
      ),
  });
}
