// What the demo tests share: reading an app's log in a demo's --dir, and waiting until its apps are up.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { until, type Run } from './npm-run.ts';

/** The log of one of the demo's apps in its `--dir` (empty until the app has written one). */
export function demoLogReader(dir: string): (app: string) => string {
  return (app) => {
    try {
      return readFileSync(path.join(dir, 'logs', `${app}.log`), 'utf8');
    } catch {
      return '';
    }
  };
}

/** Waits (90 s at most) until the demo's watcher leads and both its workers have started. */
export async function untilDemoStarted(run: Run, logOf: (app: string) => string): Promise<void> {
  await until(
    'the watcher to lead and both workers to start',
    90_000,
    () =>
      logOf('watcher').includes('became leader') &&
      ['worker-0', 'worker-1'].every((w) => logOf(w).includes('"msg":"worker started"')),
    run,
  );
}
