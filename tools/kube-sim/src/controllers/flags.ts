// Command-line flags for the controller options, for kube-sim's main.ts:
//
//   const { values } = parseArgs({ options: { ...ownOptions, ...controllerFlagOptions }, strict: true });
//   const controllerOptions = controllerOptionsFromFlags(values);
//
// `--no-lifecycle` (the old spelling of `--lifecycle off`) and `--no-controllers` stay with main.ts.
import { resolveControllerOptions, type ControllerOptions } from './index.ts';
import { POD_LIFECYCLE_MODES, type PodLifecycleMode } from './pod-fate.ts';

type NumberOption =
  | 'nodes'
  | 'startupDelayMs'
  | 'startupJitterMs'
  | 'schedulerBindMs'
  | 'kubeletRelistMs'
  | 'kubeletStatusWriteMs'
  | 'failFraction'
  | 'neverReadyFraction'
  | 'containerExitMs'
  | 'succeedAfterMs'
  | 'crashLoopBackoffMs'
  | 'jobBackoffMs'
  | 'namespaceDeletionDelayMs'
  | 'seed';

const numberFlags: [flag: string, option: NumberOption][] = [
  ['nodes', 'nodes'],
  ['startup-delay-ms', 'startupDelayMs'],
  ['startup-jitter-ms', 'startupJitterMs'],
  ['scheduler-bind-ms', 'schedulerBindMs'],
  ['kubelet-relist-ms', 'kubeletRelistMs'],
  ['kubelet-status-write-ms', 'kubeletStatusWriteMs'],
  ['fail-fraction', 'failFraction'],
  ['never-ready-fraction', 'neverReadyFraction'],
  ['container-exit-ms', 'containerExitMs'],
  ['succeed-after-ms', 'succeedAfterMs'],
  ['crash-loop-backoff-ms', 'crashLoopBackoffMs'],
  ['job-backoff-ms', 'jobBackoffMs'],
  ['namespace-deletion-delay-ms', 'namespaceDeletionDelayMs'],
  ['seed', 'seed'],
];

/** node:util parseArgs option specs for the controller flags. */
export const controllerFlagOptions = {
  lifecycle: { type: 'string' },
  'scheduler-bind-ms': { type: 'string' },
  'kubelet-relist-ms': { type: 'string' },
  'kubelet-status-write-ms': { type: 'string' },
  nodes: { type: 'string' },
  'startup-delay-ms': { type: 'string' },
  'startup-jitter-ms': { type: 'string' },
  'fail-fraction': { type: 'string' },
  'never-ready-fraction': { type: 'string' },
  'container-exit-ms': { type: 'string' },
  'succeed-after-ms': { type: 'string' },
  'crash-loop-backoff-ms': { type: 'string' },
  'job-backoff-ms': { type: 'string' },
  'namespace-deletion-delay-ms': { type: 'string' },
  seed: { type: 'string' },
  'pod-events': { type: 'boolean' },
  'no-pod-events': { type: 'boolean' },
  'no-gc': { type: 'boolean' },
  'no-namespace-controller': { type: 'boolean' },
  'no-service-account-controller': { type: 'boolean' },
  'no-replication-controller': { type: 'boolean' },
  'no-resource-quota-controller': { type: 'boolean' },
  'no-replicaset-controller': { type: 'boolean' },
  'no-deployment-controller': { type: 'boolean' },
  'no-statefulset-controller': { type: 'boolean' },
  'no-job-controller': { type: 'boolean' },
} as const;

export const controllerFlagsUsage = `  [--lifecycle kubelet|fast|off] [--scheduler-bind-ms N] [--kubelet-relist-ms N] [--kubelet-status-write-ms N]
  [--nodes N] [--startup-delay-ms N] [--startup-jitter-ms N] [--fail-fraction F]
  [--never-ready-fraction F] [--container-exit-ms N] [--succeed-after-ms N] [--crash-loop-backoff-ms N] [--job-backoff-ms N] [--seed N]
  [--namespace-deletion-delay-ms N] [--no-pod-events] [--no-gc] [--no-namespace-controller] [--no-service-account-controller]
  [--no-replication-controller] [--no-replicaset-controller] [--no-deployment-controller] [--no-statefulset-controller]
  [--no-job-controller] [--no-resource-quota-controller]`;

/**
 * Turns parsed flag values into ControllerOptions (only the flags given), validated: throws an Error naming
 * the flag (e.g. `--fail-fraction must be a number in [0, 1], got 2`).
 */
export function controllerOptionsFromFlags(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
): ControllerOptions {
  const out: ControllerOptions = {};
  for (const [flag, option] of numberFlags) {
    const v = values[flag];
    if (v === undefined) continue;
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    if (!Number.isFinite(n)) throw new Error(`kube-sim: --${flag} must be a number, got "${String(v)}"`);
    out[option] = n;
  }
  const lifecycle = values.lifecycle;
  if (lifecycle !== undefined) {
    if (typeof lifecycle !== 'string' || !(POD_LIFECYCLE_MODES as readonly string[]).includes(lifecycle))
      throw new Error(
        `kube-sim: --lifecycle must be one of ${POD_LIFECYCLE_MODES.join(', ')}, got "${String(lifecycle)}"`,
      );
    out.podLifecycle = lifecycle as PodLifecycleMode;
  }
  // --pod-events is the default now; it stays accepted for scripts written before.
  if (values['pod-events'] === true) out.podEvents = true;
  if (values['no-pod-events'] === true) out.podEvents = false;
  if (values['no-gc'] === true) out.garbageCollector = false;
  if (values['no-namespace-controller'] === true) out.namespaceController = false;
  if (values['no-service-account-controller'] === true) out.serviceAccountController = false;
  if (values['no-replication-controller'] === true) out.replicationController = false;
  if (values['no-resource-quota-controller'] === true) out.resourceQuotaController = false;
  if (values['no-replicaset-controller'] === true) out.replicaSetController = false;
  if (values['no-deployment-controller'] === true) out.deploymentController = false;
  if (values['no-statefulset-controller'] === true) out.statefulSetController = false;
  if (values['no-job-controller'] === true) out.jobController = false;
  try {
    resolveControllerOptions(out);
  } catch (err) {
    let message = err instanceof Error ? err.message : String(err);
    for (const [flag, option] of numberFlags)
      message = message.replace(new RegExp(`\\b${option}\\b`, 'g'), `--${flag}`);
    throw new Error(message.replace('kube-sim controllers: option ', 'kube-sim: '));
  }
  return out;
}
