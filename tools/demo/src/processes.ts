// The operator's own processes (watcher, workers) as children, each logging to its own file.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';

export interface Child {
  name: string;
  process: ChildProcess;
  logFile: string;
}

export function startApp(name: string, entry: string, env: Record<string, string>, logDir: string): Child {
  const logFile = path.join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return { name, process: child, logFile };
}

/** SIGTERM every child, then SIGKILL whatever is still running after `graceMs`. */
export async function stopAll(children: Child[], graceMs: number): Promise<void> {
  await Promise.all(
    children.map(
      ({ process: child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
