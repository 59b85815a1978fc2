// The operator's own processes (watcher, workers, dashboard) as children, each logging to its own file,
// supervised by testkit's Proc like every other child process the repo starts. Each is in a process
// group of its own: a terminal's Ctrl-C goes to the whole foreground group, and an app that got it from
// the terminal and then SIGTERM from stopAll would read the second signal as "exit without draining".
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Proc } from '@podset/testkit';
import { dashboardEnv } from '@podset/dashboard/config';
import { watcherEnv } from '@podset/watcher/config';
import { workerEnv } from '@podset/worker/config';

const DIE_WITH_PARENT = pathToFileURL(path.join(import.meta.dirname, 'die-with-parent.ts')).href;

export type App = 'watcher' | 'worker' | 'dashboard';

/** The variables each app declares (docs/configuration.md): the only settings it is given from here. */
const DECLARED: Record<App, readonly string[]> = {
  watcher: Object.keys(watcherEnv),
  worker: Object.keys(workerEnv),
  dashboard: Object.keys(dashboardEnv),
};

/** How to run node and reach things, never an app's setting or secret; and tracing's OTEL_*. */
const PROCESS_VARS = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TZ',
  'LANG',
  'LC_ALL',
  'TERM',
  'NODE_OPTIONS',
  'NODE_EXTRA_CA_CERTS',
  'NODE_COMPILE_CACHE',
]);

/**
 * What an app is given of this process's environment: the variables it declares and the process basics.
 * Not the rest: the dashboard must not get the watcher's and workers' PROJECTION_HMAC_KEY, nor the apps
 * the dashboard's DASHBOARD_TOKEN.
 */
export function ownEnv(
  app: App,
  from: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const declared = new Set(DECLARED[app]);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined) continue;
    if (declared.has(name) || PROCESS_VARS.has(name) || name.startsWith('OTEL_')) out[name] = value;
  }
  return out;
}

export function startApp(
  app: App,
  name: string,
  entry: string,
  env: Record<string, string>,
  logDir: string,
): Proc {
  return new Proc({
    name,
    command: process.execPath,
    args: ['--import', DIE_WITH_PARENT, entry],
    env: { ...ownEnv(app), ...env },
    logFile: path.join(logDir, `${name}.log`),
    detached: true,
  });
}

/** The watcher and `workers` workers of the checkout at `repo`, each with its environment (the watcher's, the i-th worker's). */
export function startOperator(options: {
  repo: string;
  logDir: string;
  workers: number;
  watcherEnv: Record<string, string>;
  workerEnv: (i: number) => Record<string, string>;
}): Proc[] {
  const { repo, logDir } = options;
  const key = projectionKey();
  const children = [
    startApp(
      'watcher',
      'watcher',
      path.join(repo, 'apps/watcher/src/main.ts'),
      { ...key, ...options.watcherEnv },
      logDir,
    ),
  ];
  for (let i = 0; i < options.workers; i++)
    children.push(
      startApp(
        'worker',
        `worker-${i}`,
        path.join(repo, 'apps/worker/src/main.ts'),
        { ...key, ...options.workerEnv(i) },
        logDir,
      ),
    );
  return children;
}

/**
 * The projection's integrity key shared by the watcher and the workers (never the dashboard): one made
 * for this run, unless the environment gives one (PROJECTION_HMAC_KEY or its _FILE, passed through).
 */
function projectionKey(): Record<string, string> {
  if (process.env.PROJECTION_HMAC_KEY !== undefined || process.env.PROJECTION_HMAC_KEY_FILE !== undefined) {
    return {};
  }
  return { PROJECTION_HMAC_KEY: randomBytes(32).toString('base64') };
}

/** SIGTERM every child, then SIGKILL whatever is still running after `graceMs`. */
export async function stopAll(children: readonly Proc[], graceMs: number): Promise<void> {
  await Promise.all(children.map((child) => child.stop(graceMs)));
}
