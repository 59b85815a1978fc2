// What a chaos run is asked (its options, the full and the short run), what it answers, and how that is printed.
export interface ChaosOptions {
  seed: number;
  podSets: number;
  namespaces: string[];
  /** How long faults and user changes go on. */
  chaosSeconds: number;
  /** User changes per second during the chaos window. */
  changesPerSecond: number;
  workers: number;
  /** A random worker is SIGKILLed (and restarted) this often. */
  workerKillEverySeconds: number;
  /** Convergence deadline after the faults stop (the guarantee). */
  convergeSeconds: number;
  /** How long to keep waiting past the deadline, to report the real figure. */
  graceSeconds: number;
  /** Progress lines go here. */
  log?: (line: string) => void;
  /** Keep the run's directory (apps' logs, kube-sim's audit, store events) even when it passed. */
  keepLogs?: boolean;
  /** STATE_SOURCE of the watchers and workers. Default projection (the apps' default). */
  stateSource?: 'projection' | 'api';
  /** Each app with its own Redis ACL user (libs/redis's acl.ts), as an ACL-enabled install runs them. */
  redisAcl?: boolean;
}

export const FULL: ChaosOptions = {
  seed: 1,
  podSets: 200,
  namespaces: ['default', 'chaos-b'],
  chaosSeconds: 60,
  changesPerSecond: 10,
  workers: 3,
  workerKillEverySeconds: 5,
  convergeSeconds: 30,
  graceSeconds: 90,
};

/** The watchers' watch timeouts in a chaos run (see ChaosRun#startWatcher). */
export const CHAOS_WATCH_TIMEOUTS = { WATCH_TIMEOUT_SECONDS: '5', WATCH_STALL_GRACE_SECONDS: '2' };

export const SHORT: ChaosOptions = {
  ...FULL,
  podSets: 30,
  chaosSeconds: 15,
  changesPerSecond: 6,
  graceSeconds: 30,
};

export interface ChaosResult {
  options: ChaosOptions;
  scheduleHash: string;
  /** Problems that break a guarantee (empty: the run passed). */
  violations: string[];
  figures: {
    initialConvergeMs: number;
    /** From the end of the faults until every check held; undefined: never within the grace time. */
    convergeAfterFaultsMs: number | undefined;
    overCreatedPods: number;
    /** Pods a reconcile planned before the etcd restore made after it (not counted as over-created). */
    madeFromBeforeRestore: number;
    orphanPods: number;
    reconciles: number;
    retries: number;
    malformedJobs: number;
    apiCallsByVerb: Record<string, number>;
    apiErrorsByCode: Record<string, number>;
    jobsByState: Record<string, number>;
    userChanges: Record<string, number>;
    processKills: Record<string, number>;
    podsCreated: number;
  };
  events: string[];
  /** Where the apps' logs, kube-sim's audit and the store events were kept (a failed run keeps them). */
  logDir?: string;
}

/** The figures as printed by `npm run chaos`. */
export function formatResult(r: ChaosResult): string {
  const f = r.figures;
  const s = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const rec = (x: Record<string, number>) =>
    Object.entries(x)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ') || '—';
  return [
    `chaos: seed ${r.options.seed} (schedule ${r.scheduleHash}), ${r.options.podSets} PodSets, ${r.options.chaosSeconds} s of faults, STATE_SOURCE=${r.options.stateSource ?? 'projection'}`,
    `  initial convergence:          ${s(f.initialConvergeMs)}`,
    `  converged after faults in:    ${s(f.convergeAfterFaultsMs)} (guarantee ${r.options.convergeSeconds} s)`,
    `  over-created pods:            ${f.overCreatedPods}`,
    `  made from before the restore: ${f.madeFromBeforeRestore} (planned before the etcd restore, made after it; not over-creation)`,
    `  orphan pods left:             ${f.orphanPods}`,
    `  pods created (total):         ${f.podsCreated}`,
    `  reconciles (worker GETs):     ${f.reconciles}`,
    `  retries (failed attempts):    ${f.retries}`,
    `  malformed jobs:               ${f.malformedJobs}`,
    `  user changes:                 ${rec(f.userChanges)}`,
    `  kills / restarts:             ${rec(f.processKills)}`,
    `  API calls by verb:            ${rec(f.apiCallsByVerb)}`,
    `  API errors by code:           ${rec(f.apiErrorsByCode)}`,
    `  jobs by final state:          ${rec(f.jobsByState)}`,
    r.violations.length === 0
      ? '  verdict: PASS (every guarantee held)'
      : `  verdict: FAIL\n${r.violations.map((v) => `  ✗ ${v}`).join('\n')}`,
    ...(r.logDir !== undefined ? [`  logs kept in:                 ${r.logDir}`] : []),
  ].join('\n');
}
