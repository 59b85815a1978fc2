// The options of `npm run demo`: one table that both parses the command line and writes --help, so the
// help cannot leave an option out or name a default the parser does not use.
import path from 'node:path';

interface DemoOption {
  type: 'string' | 'boolean';
  /** Shown after the flag, e.g. N or DIR (string options only). */
  value?: string;
  default: string | boolean;
  /** How the default reads in --help when it is not the literal value. */
  shownDefault?: string;
  meaning: string;
}

export function demoOptions(cwd: string): Record<string, DemoOption> {
  return {
    workers: { type: 'string', value: 'N', default: '2', meaning: 'worker processes to start' },
    port: {
      type: 'string',
      value: 'N',
      default: '0',
      shownDefault: '0: a free port',
      meaning: "kube-sim's HTTPS port",
    },
    'dashboard-port': {
      type: 'string',
      value: 'N',
      default: '0',
      shownDefault: '0: a free port',
      meaning: "the dashboard's port on 127.0.0.1",
    },
    dir: {
      type: 'string',
      value: 'DIR',
      default: path.join(cwd, '.tmp', 'demo'),
      shownDefault: '.tmp/demo',
      meaning: "where the kubeconfig and the logs (DIR/logs; the previous run's kept as NAME.1) are written",
    },
    'until-converged': {
      type: 'boolean',
      default: false,
      meaning: 'exit 0 once every PodSet has converged (for scripts and CI)',
    },
    'timeout-seconds': {
      type: 'string',
      value: 'N',
      default: '120',
      meaning: 'with --until-converged: give up and exit 1 after N seconds',
    },
    help: { type: 'boolean', default: false, meaning: 'print this help and exit' },
  };
}

/** The table as node:util parseArgs takes it. */
export function parserOptions(
  options: Record<string, DemoOption>,
): Record<string, Pick<DemoOption, 'type' | 'default'>> {
  return Object.fromEntries(
    Object.entries(options).map(([name, o]) => [name, { type: o.type, default: o.default }]),
  );
}

const flagOf = (name: string, o: DemoOption) => `--${name}${o.value ? ` ${o.value}` : ''}`;

/** The usage line(s), from the same table: every option, wrapped under the first at 90 columns. */
export function usageText(options: Record<string, DemoOption>): string {
  const lead = 'usage: npm run demo -- ';
  const lines = [lead.trimEnd()];
  for (const [name, o] of Object.entries(options)) {
    const item = `[${flagOf(name, o)}]`;
    const last = lines.length - 1;
    if (`${lines[last]} ${item}`.length > 90) lines.push(`${' '.repeat(lead.length)}${item}`);
    else lines[last] = `${lines[last]} ${item}`;
  }
  return lines.join('\n');
}

export function helpText(options: Record<string, DemoOption>): string {
  const flags = Object.entries(options).map(([name, o]) => flagOf(name, o));
  const width = Math.max(...flags.map((f) => f.length));
  const lines = Object.values(options).map((o, i) => {
    const shown = o.shownDefault ?? String(o.default);
    const fallback = o.type === 'boolean' ? '' : ` (default ${shown})`;
    return `  ${(flags[i] ?? '').padEnd(width)}  ${o.meaning}${fallback}`;
  });
  return [
    usageText(options),
    '',
    'Runs kube-sim (an in-memory Kubernetes API server), a Redis (REDIS_URL, or a redis-server of its own),',
    'the watcher, the workers and the dashboard, applies crds/ and examples/, and prints a live table of',
    "PodSets until Ctrl-C (or until its output is closed, e.g. `| head`). It prints the dashboard's URL",
    "and login token, and the URL of each process's /metrics. Its own redis-server, if it dies, is restarted",
    '(empty; at most 5 times in 2 minutes, else the demo stops with exit code 1).',
    '',
    'options:',
    ...lines,
  ].join('\n');
}
