// Which cluster `npm run test:cluster` runs against: --kubeconfig PATH, else KUBECONFIG, else a kube-sim the
// suite starts. (`npm test` never comes through here: it ignores KUBECONFIG and always uses its own kube-sim.)
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

export const USAGE = `usage: npm run test:cluster [-- --kubeconfig PATH]
  Runs the end-to-end suite (test/cluster/) against the cluster PATH's current context names; without
  --kubeconfig, against the one KUBECONFIG names; with neither, against a kube-sim it starts itself.
  It creates namespaces podset-e2e-* (removed at the end) and installs the PodSet CRD if it is missing.
  See docs/testing.md.`;

export type Choice =
  | { kind: 'help' }
  | { kind: 'kube-sim' }
  | { kind: 'cluster'; kubeconfig: string; from: '--kubeconfig' | 'KUBECONFIG' };

export class UsageError extends Error {}

/** Reads the arguments and environment; throws a UsageError naming the problem. */
export function chooseTarget(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Choice {
  let values: { kubeconfig?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { kubeconfig: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) return { kind: 'help' };
  const fromFlag = values.kubeconfig;
  const fromEnv = env.KUBECONFIG;
  let chosen: { file: string; from: '--kubeconfig' | 'KUBECONFIG' };
  if (fromFlag !== undefined) {
    if (fromFlag === '') throw new UsageError('--kubeconfig wants a file path, got an empty string');
    chosen = { file: fromFlag, from: '--kubeconfig' };
  } else if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.includes(path.delimiter)) {
      throw new UsageError(
        `KUBECONFIG lists several files (${fromEnv}); pass the one to use with --kubeconfig (or merge them: kubectl config view --raw --flatten > FILE)`,
      );
    }
    chosen = { file: fromEnv, from: 'KUBECONFIG' };
  } else {
    return { kind: 'kube-sim' };
  }
  const file = path.resolve(cwd, chosen.file);
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new UsageError(`${chosen.from}: ${file} is not a file`);
  }
  return { kind: 'cluster', kubeconfig: file, from: chosen.from };
}
