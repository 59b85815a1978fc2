// The operator's own processes (watcher, workers, dashboard) as children, each logging to its own file,
// supervised by testkit's Proc like every other child process the repo starts.
import path from 'node:path';
import { Proc } from '@podset/testkit';

export function startApp(name: string, entry: string, env: Record<string, string>, logDir: string): Proc {
  return new Proc({
    name,
    command: process.execPath,
    args: [entry],
    env: { ...process.env, ...env },
    logFile: path.join(logDir, `${name}.log`),
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
  const children = [
    startApp('watcher', path.join(repo, 'apps/watcher/src/main.ts'), options.watcherEnv, logDir),
  ];
  for (let i = 0; i < options.workers; i++)
    children.push(
      startApp(`worker-${i}`, path.join(repo, 'apps/worker/src/main.ts'), options.workerEnv(i), logDir),
    );
  return children;
}

/** SIGTERM every child, then SIGKILL whatever is still running after `graceMs`. */
export async function stopAll(children: readonly Proc[], graceMs: number): Promise<void> {
  await Promise.all(children.map((child) => child.stop(graceMs)));
}
