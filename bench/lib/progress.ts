// A bench phase that waits for pods can wait minutes (a real cluster, a large size): a line on stderr every
// few seconds says it is alive and how far it got, so a stuck run is seen as stuck before its timeout.

/** How far a phase got, as the bench's own watches see it. */
export interface ProgressState {
  /** Seconds since the phase's clock started. */
  elapsedSeconds: number;
  /** Pods that exist and are not terminating or finished. */
  createdPods: number;
  readyPods: number;
  convergedPodSets: number;
}

/** What the phase waits for. */
export interface ProgressTarget {
  pods: number;
  /** PodSets whose status must say converged (none for a run without a controller). */
  podSets?: number;
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * One progress line: `operator: 12 s, pods 3,400 created, 2,345/10,000 ready (+512 in 5 s), PodSets 120/1,000
 * converged`. `previous` (the last line's state) gives the rate; none on the first line.
 */
export function progressLine(
  phase: string,
  state: ProgressState,
  target: ProgressTarget,
  previous?: ProgressState,
): string {
  const since =
    previous === undefined
      ? ''
      : ` (+${count(state.readyPods - previous.readyPods)} in ${Math.round(state.elapsedSeconds - previous.elapsedSeconds)} s)`;
  const podSets =
    target.podSets === undefined
      ? ''
      : `, PodSets ${count(state.convergedPodSets)}/${count(target.podSets)} converged`;
  return (
    `${phase}: ${Math.round(state.elapsedSeconds)} s, pods ${count(state.createdPods)} created, ` +
    `${count(state.readyPods)}/${count(target.pods)} ready${since}${podSets}`
  );
}

/** Every ~5 s by default: often enough to see movement, rare enough not to flood a log. */
export const PROGRESS_EVERY_MS = 5000;

/**
 * Calls `write` with a progress line every `everyMs` until the returned stop is called. The timer is unref'd:
 * it never keeps the bench alive by itself.
 */
export function startProgress(
  phase: string,
  read: () => ProgressState,
  target: ProgressTarget,
  write: (line: string) => void,
  everyMs = PROGRESS_EVERY_MS,
): () => void {
  let previous: ProgressState | undefined;
  const timer = setInterval(() => {
    const state = read();
    write(progressLine(phase, state, target, previous));
    previous = state;
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
