// converge: N PodSets × R replicas reconciled by W worker processes × C concurrency, against the limit:
// the same PodSet and pod creates issued by a tight direct client loop (https, keep-alive, W×C in flight)
// against a fresh kube-sim of the same settings. Both clocks run until every pod is ready; the operator's
// until every PodSet's status also says so. The peer (bench/peer: one process, informers, an in-memory
// work queue, the same planner and total concurrency) runs the same work on a third fresh kube-sim.
// With --kubeconfig the three run one after another on that cluster instead, each in a fresh namespace.
// The pieces, in converge/: options.ts, runs.ts (the three runs), steps.ts (what they share), report.ts.
import type { Result } from '../lib/report.ts';
import type { ConvergeOptions } from './converge/options.ts';
import { convergeResult, convergeRows, figuresOf, plotConverge } from './converge/report.ts';
import { runLimit, runOperator, runPeer } from './converge/runs.ts';

export async function converge(o: ConvergeOptions, log: (s: string) => void): Promise<Result> {
  const op = await runOperator({ ...o, pods: o.pods ?? 'kubelet' }, log);
  const limit = await runLimit(o, log);
  const peer = await runPeer(o, log);
  const f = figuresOf(o, op, limit, peer);
  const rows = convergeRows(f);
  const pods = f.pods;
  if (op.activePods !== pods) throw new Error(`operator left ${op.activePods} active pods, expected ${pods}`);
  if (peer.activePods !== pods) throw new Error(`peer left ${peer.activePods} active pods, expected ${pods}`);
  if (o.plot) plotConverge(o.plot, f);
  return convergeResult(f, rows);
}
