// The node agent's command line: `npm run node-agent -- --kubeconfig PATH [--nodes N] [--namespace NS]…`.
// Parsed and validated here (pure), so every bad flag is named before anything touches the cluster.
import { parseArgs } from 'node:util';

export const USAGE = `usage: npm run node-agent -- --kubeconfig PATH [options]
  --kubeconfig PATH        the cluster (default: KUBECONFIG, else ~/.kube/config)
  --nodes N                Nodes to register (default 100: with --max-pods, room for 11,000 pods)
  --node-prefix P          their names are P1 … PN (default agent-node-)
  --max-pods N             pods per node: its allocatable "pods", and the most bound to it (default 110)
  --qps N                  requests per second of the agent's client, bursts of 2×N (default 0: no limit)
  --namespace NS           run only the pods of NS (repeat for several; default: every namespace)
  --startup-delay-ms N     Pending → Running delay (default 200) …
  --startup-jitter-ms N    … plus a random delay in [0, N] (default 600)
  --fail-fraction F        fraction of unannotated pods that fail: Failed if restartPolicy Never, else a
                           crash loop (default 0)
  --never-ready-fraction F fraction of unannotated pods that never become Ready (default 0)
  --container-exit-ms N    time a deleted pod's containers take to stop (default 300)
  --succeed-after-ms N     run time of pods that succeed (restartPolicy Never/OnFailure) (default 1000)
  --crash-loop-backoff-ms N  first back-off of a crash-looping pod, doubled per restart up to 30×N (default 10000)
  --lease-seconds N        the nodes' Lease duration; renewed every quarter of it (default 40)
  --log-level LEVEL        pino level (default info)
Pods follow the annotations kube-sim documents (kube-sim.podset.io/fate, …/startup-delay-ms, …/exit-delay-ms).`;

export interface AgentOptions {
  kubeconfig: string | undefined;
  nodes: number;
  nodePrefix: string;
  maxPods: number;
  /** Requests per second of the agent's client (bursts of twice that); 0: no limit. */
  qps: number;
  /** Empty: every namespace. */
  namespaces: string[];
  startupDelayMs: number;
  startupJitterMs: number;
  failFraction: number;
  neverReadyFraction: number;
  containerExitMs: number;
  succeedAfterMs: number;
  /** The first back-off of a crash-looping pod (restartPolicy Always/OnFailure, fate fail), doubled per restart. */
  crashLoopBackoffMs: number;
  leaseSeconds: number;
  logLevel: string;
}

/** What a usage error carries: the message names the flag and the value. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const DEFAULT_NODES = 100;
export const DEFAULT_MAX_PODS = 110;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `--help` gives undefined (print the usage); a bad flag throws a UsageError. */
export function parseOptions(argv: readonly string[]): AgentOptions | undefined {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        nodes: { type: 'string' },
        'node-prefix': { type: 'string' },
        'max-pods': { type: 'string' },
        qps: { type: 'string' },
        namespace: { type: 'string', multiple: true },
        'startup-delay-ms': { type: 'string' },
        'startup-jitter-ms': { type: 'string' },
        'fail-fraction': { type: 'string' },
        'never-ready-fraction': { type: 'string' },
        'container-exit-ms': { type: 'string' },
        'succeed-after-ms': { type: 'string' },
        'crash-loop-backoff-ms': { type: 'string' },
        'lease-seconds': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) return undefined;
  const number = (flag: string, fallback: number, o: { integer?: boolean; min?: number; max?: number }) => {
    const raw = values[flag];
    if (raw === undefined) return fallback;
    const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
    const min = o.min ?? 0;
    if (
      !Number.isFinite(n) ||
      n < min ||
      (o.max !== undefined && n > o.max) ||
      (o.integer && !Number.isInteger(n))
    )
      throw new UsageError(
        `--${flag} must be ${o.integer ? 'an integer' : 'a number'} ${o.max !== undefined ? `in [${min}, ${o.max}]` : `>= ${min}`}, got "${String(raw)}"`,
      );
    return n;
  };
  const nodePrefix = (values['node-prefix'] as string | undefined) ?? 'agent-node-';
  if (!DNS_LABEL.test(`${nodePrefix}1`))
    throw new UsageError(
      `--node-prefix must start a DNS label (lowercase letters, digits, '-'), got "${nodePrefix}"`,
    );
  const namespaces = (values.namespace as string[] | undefined) ?? [];
  for (const ns of namespaces)
    if (!DNS_LABEL.test(ns)) throw new UsageError(`--namespace must be a namespace name, got "${ns}"`);
  const logLevel = (values['log-level'] as string | undefined) ?? 'info';
  if (!LEVELS.includes(logLevel))
    throw new UsageError(`--log-level must be one of ${LEVELS.join(', ')}, got "${logLevel}"`);
  const options: AgentOptions = {
    kubeconfig: values.kubeconfig as string | undefined,
    // 100 nodes of 110 pods (a kubelet's default) hold the bench's default size, 1000 PodSets × 10.
    nodes: number('nodes', DEFAULT_NODES, { integer: true, min: 1, max: 1000 }),
    nodePrefix,
    maxPods: number('max-pods', DEFAULT_MAX_PODS, { integer: true, min: 1 }),
    // No limit by default: the agent plays every node's kubelet, and each of those has a budget of its own.
    qps: number('qps', 0, {}),
    namespaces: [...new Set(namespaces)],
    startupDelayMs: number('startup-delay-ms', 200, {}),
    startupJitterMs: number('startup-jitter-ms', 600, {}),
    failFraction: number('fail-fraction', 0, { max: 1 }),
    neverReadyFraction: number('never-ready-fraction', 0, { max: 1 }),
    containerExitMs: number('container-exit-ms', 300, {}),
    succeedAfterMs: number('succeed-after-ms', 1000, {}),
    // Not 0: a crash-looping pod would be restarted (and written) in a tight loop.
    crashLoopBackoffMs: number('crash-loop-backoff-ms', 10_000, { min: 10 }),
    leaseSeconds: number('lease-seconds', 40, { integer: true, min: 4 }),
    logLevel,
  };
  if (options.failFraction + options.neverReadyFraction > 1)
    throw new UsageError(
      `--fail-fraction + --never-ready-fraction must be at most 1, got ${options.failFraction + options.neverReadyFraction}`,
    );
  return options;
}
