// What the Helm tests share: whether helm is here, the skip rule, and a helm home of the test's own.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

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
