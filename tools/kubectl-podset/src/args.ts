// The command line of `kubectl podset …` (kubectl passes every argument after the plugin's name as it is).
import { parseArgs } from 'node:util';

export const ACTIONS = ['status', 'history', 'undo', 'restart', 'pause', 'resume'] as const;
export type Action = (typeof ACTIONS)[number];

export const USAGE = `usage: kubectl podset rollout ACTION NAME [-n NAMESPACE] [flags]

Rollout control for PodSets, as \`kubectl rollout\` for Deployments:
  status NAME [--timeout=DURATION]   wait until the rollout completes (exit 1 past its progress deadline or
                                     the timeout, e.g. 30s, 5m; 0 waits for ever)
  history NAME [--revision=N]        the revisions (their change-cause), or one revision's pod template
  undo NAME [--to-revision=N]        put a previous revision's template back (default: the one before)
  restart NAME                       replace every pod (kubectl.kubernetes.io/restartedAt in the template)
  pause NAME / resume NAME           stop / start rolling out template changes (spec.paused)

Flags: -n, --namespace; --kubeconfig (else KUBECONFIG, else ~/.kube/config); --context.`;

export interface Args {
  action: Action;
  name: string;
  namespace?: string;
  kubeconfig?: string;
  context?: string;
  toRevision?: number;
  revision?: number;
  /** 0: no limit. */
  timeoutMs: number;
}

export class UsageError extends Error {}

/** "30s", "5m", "1h", "1m30s", "0" (kubectl's duration flags; a bare number is seconds). */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let ms = 0;
  let rest = text;
  while (rest !== '') {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)/.exec(rest);
    if (m === null) throw new UsageError(`invalid duration ${JSON.stringify(text)} (e.g. 30s, 5m, 1h)`);
    ms += Number(m[1]) * units[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  if (text === '') throw new UsageError('empty duration');
  return ms;
}

function revisionOf(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new UsageError(`${flag} must be a revision number, got ${text}`);
  return n === 0 ? undefined : n; // 0 means "the default", as for kubectl
}

export function parseCommandLine(argv: readonly string[]): Args | 'help' {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      'to-revision': { type: 'string' },
      revision: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true || positionals.length === 0) return 'help';
  const [group, action, name, ...extra] = positionals;
  if (group !== 'rollout') throw new UsageError(`unknown command ${JSON.stringify(group)}: only rollout`);
  if (!ACTIONS.includes(action as Action)) {
    throw new UsageError(`unknown rollout action ${JSON.stringify(action)}: one of ${ACTIONS.join(', ')}`);
  }
  if (name === undefined || name === '') throw new UsageError(`rollout ${action} needs a PodSet's name`);
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const args: Args = {
    action: action as Action,
    name,
    timeoutMs: values.timeout === undefined ? 0 : parseDuration(values.timeout),
  };
  if (values.namespace !== undefined) args.namespace = values.namespace;
  if (values.kubeconfig !== undefined) args.kubeconfig = values.kubeconfig;
  if (values.context !== undefined) args.context = values.context;
  const toRevision = revisionOf('--to-revision', values['to-revision']);
  if (toRevision !== undefined) args.toRevision = toRevision;
  const revision = revisionOf('--revision', values.revision);
  if (revision !== undefined) args.revision = revision;
  return args;
}
