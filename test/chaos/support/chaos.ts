// The chaos run: many PodSets under random user changes while workers, watchers, Redis and the API
// server fail, then faults stop and the cluster must converge. The verdict comes from kube-sim's own
// history (store events and the audit log), computed independently of the operator's code.
//
// Used by `npm run chaos` (bench/chaos.ts: the full run) and test/chaos/chaos-short.test.ts (CI).
// A fixed seed fixes the schedule (which PodSet, which change, which worker, when); what the OS
// scheduler does with it is not repeatable. The pieces: options.ts (what a run is asked and answers),
// schedule.ts (the seeded schedule), chaos-run.ts (the run's state and phases), chaos-faults.ts (the user
// changes and faults), log-tail.ts (what the workers logged), chaos-acl.ts (the apps' Redis users).
import { ChaosRun } from './chaos-run.ts';
import type { ChaosOptions, ChaosResult } from './options.ts';

export { CHAOS_WATCH_TIMEOUTS, FULL, SHORT, formatResult } from './options.ts';
export type { ChaosOptions, ChaosResult } from './options.ts';
export { makeSchedule, prng } from './schedule.ts';

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const run = await ChaosRun.start(o);
  return await run.run();
}
