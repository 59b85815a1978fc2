// The steps the converge runs share: the warm-up before the clock, the measured creates until convergence,
// the bench's watches, and the counting of requests from the audit or from the workers' /metrics.
import { type KubeObj } from '../../lib/client.ts';
import type { World } from '../../lib/cluster.ts';
import { NODE_AGENT_IDENTITY } from '../../lib/cluster.ts';
import { sumMetric } from '../../lib/figures.ts';
import { pool, podSetBody } from '../../lib/podsets.ts';
import { throwIfInterrupted } from '../../lib/interrupt.ts';
import { Tracker } from '../../lib/tracker.ts';
import type { Proc } from '../../../test/e2e/support/harness.ts';

/** One PodSet of 1 through the whole path before the clock starts (connections, JIT, caches). */
export async function warmUp(world: World, describe: () => string): Promise<void> {
  await world.admin.json('POST', world.podSetsPath, podSetBody('warmup', 1, world.ns));
  await waitFor(
    async () => {
      const ps = await world.admin.json<KubeObj>('GET', `${world.podSetsPath}/warmup`);
      return ps.status?.readyReplicas === 1;
    },
    60_000,
    () => `the warm-up PodSet did not converge:\n${describe()}`,
  );
}

/**
 * Warm-up PodSets until every worker has reconciled at least once (its podset_reconcile_total > 0), a
 * batch at a time of more than one worker takes at once; false if some worker still had none after 10.
 * A worker that exited throws, with its exit and its last lines: its metrics would only read as idle, and
 * the run would fail later on its gone process with nothing to say why.
 */
export async function warmEveryWorker(
  world: World,
  workers: readonly Proc[],
  concurrency: number,
  describe: () => string,
): Promise<boolean> {
  for (let round = 0; round < 10; round++) {
    const exited = workers.filter((w) => !w.running).map((w) => w.name);
    if (exited.length > 0) {
      throw new Error(`${exited.join(', ')} exited during the warm-up:\n${describe()}`);
    }
    const metrics = await Promise.all(workers.map((w) => world.metrics(w)));
    const idle = metrics.filter((m) => sumMetric(m, 'podset_reconcile_total') === 0).length;
    if (idle === 0) return true;
    const names = Array.from({ length: concurrency + idle }, (_, i) => `warmup-${round}-${i}`);
    await pool(names.length, names.length, async (i) => {
      await world.admin.json('POST', world.podSetsPath, podSetBody(names[i]!, 1, world.ns));
    });
    await waitFor(
      async () => {
        const list = await world.admin.json<{ items: KubeObj[] }>('GET', world.podSetsPath);
        const ready = list.items.filter(
          (ps) => names.includes(ps.metadata.name) && ps.status?.readyReplicas === 1,
        );
        return ready.length === names.length;
      },
      60_000,
      () => `the warm-up PodSets of round ${round} did not converge:\n${describe()}`,
    );
  }
  return false;
}

/** Starts the clock, creates the N PodSets × R (workers × concurrency at once), waits until all converged; seconds. */
export async function createAndConverge(
  world: World,
  tracker: Tracker,
  o: { podsets: number; replicas: number; workers: number; concurrency: number; timeoutMs: number },
  describe: () => string,
): Promise<number> {
  const N = o.podsets;
  tracker.start();
  await pool(N, o.workers * o.concurrency, async (i) => {
    await world.admin.json('POST', world.podSetsPath, podSetBody(`ps-${i}`, o.replicas, world.ns));
  });
  return tracker.until(
    () => tracker.converged.size === N,
    o.timeoutMs,
    () =>
      `${tracker.converged.size}/${N} PodSets converged, ${tracker.readyPods.size} pods ready\n${describe()}`,
  );
}

/** The bench's watches of the world's PodSets and pods (those named ps-…). */
export function trackerOf(world: World): Tracker {
  return new Tracker(world.admin, 'ps-', { pods: world.podsPath, podSets: world.podSetsPath });
}

/** The cluster's processes, to meter, when the world has them: kube-sim, and the node agent if it runs. */
export function simPid(world: World): Record<string, number> {
  const agent = world.apps.find((p) => p.name === NODE_AGENT_IDENTITY);
  return {
    ...(world.sim?.pid !== undefined ? { 'kube-sim': world.sim.pid } : {}),
    ...(agent?.pid !== undefined ? { [NODE_AGENT_IDENTITY]: agent.pid } : {}),
  };
}

/** Requests by "verb resource" between two scrapes of a counter labelled verb and resource, summed over processes. */
export function requestsFromMetrics(
  before: readonly Map<string, number>[],
  after: readonly Map<string, number>[],
  name: string,
): Record<string, number> {
  const out: Record<string, number> = {};
  after.forEach((m, i) => {
    for (const [key, value] of m) {
      if (!key.startsWith(`${name}{`)) continue;
      const verb = /verb="([^"]*)"/.exec(key)?.[1] ?? '';
      const resource = /resource="([^"]*)"/.exec(key)?.[1] ?? '';
      const k = `${verb} ${resource}`;
      out[k] = (out[k] ?? 0) + value - (before[i]?.get(key) ?? 0);
    }
  });
  return out;
}

/** Requests of the given verbs in a "verb resource" → count record. */
export function sumVerbs(counts: Readonly<Record<string, number>>, verbs: ReadonlySet<string>): number {
  let n = 0;
  for (const [k, v] of Object.entries(counts)) if (verbs.has(k.split(' ')[0]!)) n += v;
  return n;
}

export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    throwIfInterrupted();
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** GETs of a PodSet (not its status) and LISTs of pods, in counts keyed "verb resource[/subresource]". */
export function keyReadsOf(counts: Record<string, number>): number {
  let n = 0;
  for (const [k, v] of Object.entries(counts)) {
    const [verb, resource] = k.split(' ') as [string, string | undefined];
    const podSet = resource === 'podsets' || resource === 'podsets.podset.io';
    if ((verb === 'get' && podSet) || (verb === 'list' && resource === 'pods')) n += v;
  }
  return n;
}
