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

/** SIGTERM every child, then SIGKILL whatever is still running after `graceMs`. */
export async function stopAll(children: readonly Proc[], graceMs: number): Promise<void> {
  await Promise.all(children.map((child) => child.stop(graceMs)));
}
