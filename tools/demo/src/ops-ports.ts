// The ports the watcher and the workers serve /metrics, /healthz and /readyz on, in the demo and in
// `npm run operator`: free ones, each different, and the URLs to print.
import { freePort } from '@podset/testkit';

export interface OpsPorts {
  watcher: number;
  workers: number[];
}

/** One free port for the watcher and one per worker, no two alike. */
export async function freeOpsPorts(workers: number): Promise<OpsPorts> {
  const taken = new Set<number>();
  // A port is free when asked; asked again at once, the same one may come back.
  while (taken.size < workers + 1) taken.add(await freePort());
  const [watcher, ...rest] = [...taken];
  return { watcher: watcher as number, workers: rest };
}

export function metricsUrls(ports: OpsPorts): string[] {
  return [
    `watcher http://127.0.0.1:${ports.watcher}/metrics`,
    ...ports.workers.map((port, i) => `worker-${i} http://127.0.0.1:${port}/metrics`),
  ];
}
