// What a converge run is asked, and the kube-sim settings that follow from it.
import type { ExternalCluster, SimOptions } from '../../lib/cluster.ts';
import type { PodRunner } from '../../lib/pod-runner.ts';

export interface ConvergeOptions {
  podsets: number;
  replicas: number;
  workers: number;
  concurrency: number;
  createBurst: number;
  latencyMs: number;
  timeoutMs: number;
  profileDir?: string;
  /** Where to write the SVG plot (undefined: none). */
  plot?: string;
  smoke: boolean;
  /** Run on this cluster (a fresh namespace per run) instead of a kube-sim per run. */
  cluster?: ExternalCluster | undefined;
  /** kube-sim's pod startup (ms before a pod is Running and Ready, plus up to `jitter`); default 50 + 150. */
  podStartup?: { delay: number; jitter: number };
  /** Who brings the pods to life on kube-sim (--lifecycle, --node-agent); default kubelet. */
  pods?: PodRunner;
}

/** kube-sim's settings of one run: its added latency, and the pods' startup when given. */
export function simOptionsOf(o: Pick<ConvergeOptions, 'latencyMs' | 'podStartup'>): SimOptions {
  return {
    latencyMs: o.latencyMs,
    ...(o.podStartup ? { startupDelayMs: o.podStartup.delay, startupJitterMs: o.podStartup.jitter } : {}),
  };
}
