// How many pod creates (and deletes) one reconcile pass may plan. The status is written after every
// pass, so a pass's length is how long a large scale leaves its status unchanged: a pass is sized to what
// the worker's client-side rate limit lets through in about PASS_SECONDS (500 pods at 50 requests/s
// would hold it for 10 s), and never more than client-go's burstReplicas.

/** About how long one capped pass's pod writes take at the client's rate limit. */
export const PASS_SECONDS = 2;
/** A ReplicaSet's most creates or deletes in one sync (burstReplicas). */
export const MAX_POD_WRITES_PER_PASS = 500;

/** The per-pass cap for a client limited to `kubeQps` requests/s (0: no limit). */
export function podWritesPerPass(kubeQps: number): number {
  if (!(kubeQps > 0)) return MAX_POD_WRITES_PER_PASS;
  return Math.max(1, Math.min(MAX_POD_WRITES_PER_PASS, Math.floor(kubeQps * PASS_SECONDS)));
}
