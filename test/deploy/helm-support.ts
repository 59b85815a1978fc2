// What the Helm tests share: whether helm is here, the skip rule, a helm home of the test's own, helm run
// as a child process, and the rendered objects read back.
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseK8sYaml } from '../../scripts/k8s-yaml.ts';

export const hasHelm = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' }).status === 0;

/**
 * On a developer's machine without helm these checks skip and say so; in CI (which installs helm) a missing
 * helm fails them instead, so the chart can never go unchecked there.
 */
export const needsHelm = {
  skip: hasHelm || process.env.CI ? false : 'helm is not installed (bash scripts/install-helm.sh)',
};

/** helm's own cache, config and data (and HOME) in `dir`, not the user's. */
export function helmHomeEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    HELM_CACHE_HOME: path.join(dir, 'cache'),
    HELM_CONFIG_HOME: path.join(dir, 'config'),
    HELM_DATA_HOME: path.join(dir, 'data'),
  };
}

/** `helm ARGS`: its exit code and output (a failure is an answer, not an exception). */
export function helm(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('helm', args, { env, maxBuffer: 64 << 20, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

/** A rendered object, as far as the chart's tests read it. */
export interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: { name: string; image: string }[] } } };
}

export const objects = (yaml: string): Obj[] => parseK8sYaml<Obj>(yaml);
export const key = (o: Obj) => `${o.kind} ${o.metadata.namespace ?? '-'}/${o.metadata.name}`;

/** The namespace the chart's tests release it into unless they say otherwise. */
export const NS = 'podset-system';

/** What kustomize renders, as the chart renders it into NS: no Namespace (not the release's), cluster-wide RBAC named after the namespace. */
export function asReleased(list: Obj[]): Obj[] {
  return list
    .filter((o) => o.kind !== 'Namespace')
    .map((o) => {
      if (o.kind !== 'ClusterRole' && o.kind !== 'ClusterRoleBinding') return o;
      const c = structuredClone(o) as Obj & { roleRef?: { name: string } };
      c.metadata.name = `${NS}-${o.metadata.name}`;
      if (c.roleRef) c.roleRef.name = `${NS}-${c.roleRef.name}`;
      return c;
    });
}

/** The values of a namespaced release and of one on an external Redis. */
export const NAMESPACED = ['--set', 'namespaced=true', '--set', 'watchNamespaces={team-a,team-b}'];
export const EXTERNAL = [
  '--set',
  'externalRedis.enabled=true',
  '--set',
  'externalRedis.secretName=redis-conn',
];
