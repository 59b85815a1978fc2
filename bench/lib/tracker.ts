// Follows pods and PodSets through watches (the bench's own, as admin over plain http) and samples
// how many pods are ready and how many PodSets report converged status, over time.
import { type Client, type KubeObj } from './client.ts';
import { PODS_PATH, PODSETS_PATH, sleep } from './cluster.ts';
import { isConverged, isReady } from './podsets.ts';
import { startProgress, type ProgressTarget } from './progress.ts';
import { throwIfInterrupted } from './interrupt.ts';

export interface Sample {
  /** Seconds since start(). */
  t: number;
  readyPods: number;
  convergedPodSets: number;
  /** Sum over converged PodSets of their replicas: pods the operator has reported converged. */
  convergedPods: number;
}

export class Tracker {
  readonly #client: Client;
  readonly readyPods = new Set<string>();
  readonly activePods = new Set<string>();
  readonly podSets = new Map<string, KubeObj>();
  readonly converged = new Set<string>();
  convergedPods = 0;
  readonly samples: Sample[] = [];
  /** Called for every pod event (type, pod). */
  onPod: ((type: string, pod: KubeObj) => void) | undefined;
  onPodSet: ((type: string, ps: KubeObj) => void) | undefined;
  #watches: { stop: () => void }[] = [];
  #t0 = 0;
  #timer: NodeJS.Timeout | undefined;
  #progress: { phase: string; target: ProgressTarget; write: (line: string) => void } | undefined;
  #stopProgress: (() => void) | undefined;
  /** Only objects with this name prefix count. */
  readonly #prefix: string;

  readonly #podsPath: string;
  readonly #podSetsPath: string;

  /** `paths`: where the pods and PodSets are (default: kube-sim's default namespace). */
  constructor(
    client: Client,
    prefix = '',
    paths: { pods: string; podSets: string } = { pods: PODS_PATH, podSets: PODSETS_PATH },
  ) {
    this.#client = client;
    this.#prefix = prefix;
    this.#podsPath = paths.pods;
    this.#podSetsPath = paths.podSets;
  }

  async watch(): Promise<void> {
    const pods = await this.#client.json<{ metadata: { resourceVersion: string }; items: KubeObj[] }>(
      'GET',
      `${this.#podsPath}?labelSelector=podset.io%2Fname`,
    );
    for (const p of pods.items) this.#pod('ADDED', p);
    const sets = await this.#client.json<{ metadata: { resourceVersion: string }; items: KubeObj[] }>(
      'GET',
      this.#podSetsPath,
    );
    for (const ps of sets.items) this.#podSet('ADDED', ps);
    this.#watches.push(
      this.#client.watch(
        `${this.#podsPath}?labelSelector=podset.io%2Fname`,
        pods.metadata.resourceVersion,
        (t, o) => this.#pod(t, o),
      ),
      this.#client.watch(this.#podSetsPath, sets.metadata.resourceVersion, (t, o) => this.#podSet(t, o)),
    );
  }

  #pod(type: string, pod: KubeObj): void {
    const name = pod.metadata.name;
    if (!name.startsWith(this.#prefix)) return;
    const gone = type === 'DELETED';
    const terminating = pod.metadata.deletionTimestamp !== undefined;
    const finished = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    if (gone || terminating || finished) this.activePods.delete(name);
    else this.activePods.add(name);
    if (!gone && !terminating && isReady(pod)) this.readyPods.add(name);
    else this.readyPods.delete(name);
    this.onPod?.(type, pod);
  }

  #podSet(type: string, ps: KubeObj): void {
    const name = ps.metadata.name;
    if (!name.startsWith(this.#prefix)) return;
    const was = this.converged.has(name);
    if (was) this.convergedPods -= this.podSets.get(name)?.spec?.replicas ?? 1;
    this.converged.delete(name);
    if (type === 'DELETED') this.podSets.delete(name);
    else {
      this.podSets.set(name, ps);
      if (isConverged(ps)) {
        this.converged.add(name);
        this.convergedPods += ps.spec?.replicas ?? 1;
      }
    }
    this.onPodSet?.(type, ps);
  }

  /** From start() to stop(), `write` gets a progress line of `phase` every few seconds (see progress.ts). */
  reportProgress(phase: string, target: ProgressTarget, write: (line: string) => void): void {
    this.#progress = { phase, target, write };
  }

  /** Starts the clock and samples every `everyMs`. */
  start(everyMs = 100): void {
    this.#t0 = performance.now();
    this.samples.length = 0;
    this.sample();
    this.#timer = setInterval(() => this.sample(), everyMs);
    const p = this.#progress;
    this.#stopProgress?.();
    this.#stopProgress =
      p === undefined
        ? undefined
        : startProgress(
            p.phase,
            () => ({
              elapsedSeconds: this.elapsed(),
              createdPods: this.activePods.size,
              readyPods: this.readyPods.size,
              convergedPodSets: this.converged.size,
            }),
            p.target,
            p.write,
          );
  }

  elapsed(): number {
    return (performance.now() - this.#t0) / 1000;
  }

  sample(): void {
    this.samples.push({
      t: this.elapsed(),
      readyPods: this.readyPods.size,
      convergedPodSets: this.converged.size,
      convergedPods: this.convergedPods,
    });
  }

  /** Resolves when `done()` holds (checked every 20 ms); rejects after `timeoutMs` with `what()`. */
  async until(done: () => boolean, timeoutMs: number, what: () => string): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      // Ctrl-C ends the wait: the scenario's cleanup then stops this tracker and closes its world.
      throwIfInterrupted();
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s: ${what()}`);
      await sleep(20);
    }
    this.sample();
    return this.elapsed();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#stopProgress?.();
    this.#stopProgress = undefined;
    for (const w of this.#watches) w.stop();
    this.#watches = [];
  }
}
