// The watcher's configuration: environment variables, declared once, validated at start-up.
import { kubeAccessEnv, kubeRateEnv } from '@podset/kube';
import { httpHostEnv, logEnv } from '@podset/runtime';
import { eventLogKeyOf, watcherKeyspace } from '@podset/redis';
import { attemptsEnv, queueEnv } from '@podset/queue';
import { redisEnv } from '@podset/redis';
import { stateSourceEnv } from '@podset/state';
import { int, list, oneOf, optionalStr, parseEnv, str, type Config } from '@podset/config';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const watcherEnv = {
  ...kubeAccessEnv,
  ...redisEnv,
  ...queueEnv,
  WATCH_NAMESPACES: list({
    description: 'Comma-separated namespaces to watch; empty: all namespaces',
    default: [],
    item: DNS_LABEL,
  }),
  RESYNC_PERIOD_SECONDS: int({
    description: 'Every this often, request every PodSet at bulk priority (0: never)',
    default: 600,
    min: 0,
  }),
  LEASE_NAMESPACE: str({
    description: 'Namespace of the leader-election Lease',
    default: 'default',
    pattern: DNS_LABEL,
  }),
  LEASE_NAME: str({ description: 'Name of the leader-election Lease', default: 'podset-watcher' }),
  LEASE_DURATION_SECONDS: int({
    description: 'How long a standby waits on a silent leader before taking over',
    default: 15,
    min: 2,
    max: 3600,
  }),
  POD_NAME: optionalStr({ description: "This replica's name (downward API); the Lease holder identity" }),
  POD_NAMESPACE: optionalStr({
    description:
      "The watcher's own namespace (downward API); a WATCH_NAMESPACES that lists it is refused at start",
  }),
  HOLDER_IDENTITY: optionalStr({
    description: 'Lease holder identity; wins over POD_NAME; default hostname-pid',
  }),
  WATCH_TIMEOUT_SECONDS: int({
    description:
      'Server-side timeout asked for each watch (a random value in [t, 2t) is used); the server ends a healthy watch then',
    default: 300,
    min: 1,
  }),
  WATCH_STALL_GRACE_SECONDS: int({
    description:
      'A watch still open this long past its timeout, with nothing received for as long, is stalled: restarted',
    default: 30,
    min: 1,
  }),
  STATUS_COLLAPSE_MS: int({
    description:
      "A pod event that moves only its PodSet's status (a pod's phase or readiness) during the PodSet's rollout requests a reconcile due this much later, so the changes of one PodSet's pods within it cost one reconcile; one that leaves the PodSet's pods all ready is due at once, any other waits STATUS_COLLAPSE_PARTIAL_MS; an event that can change a plan is due at once and takes those along (0: every change at once)",
    default: 1000,
    min: 0,
    max: 10_000,
  }),
  STATUS_COLLAPSE_PARTIAL_MS: int({
    description:
      "The window of a status-only pod event (see STATUS_COLLAPSE_MS) that leaves its PodSet's pods not all ready, no rollout under way: a scale's pods coming ready one after another cost fewer reconciles and status writes, READY still climbing (unused when STATUS_COLLAPSE_MS is 0)",
    default: 3000,
    min: 0,
    max: 10_000,
  }),
  QUIET_EVENT_HOLD_MS: int({
    description:
      "A pod event that cannot request a reconcile (it moves none of what a plan or the PodSet's status reads, such as a kubelet's container-status write or a binding), or the ADDED of a pod its PodSet created, or a PodSet's status write (an event that moves none of its uid, generation, deletion, finalizers or labels), arrives alone: it waits up to this long to go to Redis with the next event, instead of a round trip of its own; with the pod watch paced (POD_WATCH_READ_PAUSE_MS) it goes with the first turn this long after it, so up to this plus the pause (0: never held)",
    default: 50,
    min: 0,
    max: 1000,
  }),
  POD_WATCH_READ_PAUSE_MS: int({
    description:
      "After each turn of the pod watch, what arrives waits in the kernel up to this long and is then read in one turn: where pods' status writes come one at a time, the watcher wakes once per turn rather than once per event; a pod event waits up to this long, and one after a quiet spell not at all. A busy watch pauses less (as long as 512 KiB take to come in at its rate) and a turn takes the whole backlog, so a busy watch is never slowed. PodSet watches are read as events arrive (0: pods too)",
    default: 150,
    min: 0,
    max: 1000,
  }),
  POD_WATCH_ENCODING: oneOf(['json', 'protobuf'], {
    description:
      "How pods are watched: json, or protobuf as kube-controller-manager watches them (the watcher decodes a pod's metadata, node, phase and conditions and steps over the rest by length instead of parsing it; on kube-sim it measured no gain, see docs/PERFORMANCE.md). With protobuf the watcher still reads JSON where the API server answers so; a protobuf stream that does not decode is logged once and pods are watched in JSON from then on. PodSets are always watched in JSON (custom resources have no protobuf)",
    default: 'json',
  }),
  EVENT_LOG_MAXLEN: int({
    description:
      "Approximate length cap of the event-log stream, in entries (an entry holds up to 8 records: a watch batch's run of one PodSet's)",
    default: 10_000,
    min: 1,
  }),
  CHECKPOINT_EVERY_EVENTS: int({
    description: 'Checkpoint the resourceVersion after this many events',
    default: 100,
    min: 1,
  }),
  CHECKPOINT_INTERVAL_MS: int({
    description: 'Checkpoint pending resourceVersions at least this often',
    default: 1000,
    min: 10,
  }),
  ...kubeRateEnv({ qps: 20, burst: 40 }),
  ...attemptsEnv,
  ...stateSourceEnv,
  HTTP_PORT: int({
    description: 'Port for /metrics, /healthz, /readyz (0: disabled)',
    default: 8080,
    min: 0,
    max: 65535,
  }),
  ...httpHostEnv,
  ...logEnv,
};

export type WatcherConfig = Config<typeof watcherEnv>;

export function parseWatcherConfig(env: Record<string, string | undefined>): WatcherConfig {
  return parseEnv(watcherEnv, env);
}

/** Where the watcher keeps its own state in Redis, next to the queue's keys (same hash tag). */
export function redisKeys(
  cfg: Pick<WatcherConfig, 'QUEUE_PREFIX' | 'QUEUE_NAME' | 'EVENT_LOG_KEY' | 'LEASE_NAME'>,
) {
  return {
    ...watcherKeyspace(cfg.QUEUE_PREFIX, cfg.QUEUE_NAME, cfg.LEASE_NAME),
    eventLog: eventLogKeyOf(cfg),
  };
}

/**
 * Variables earlier versions read and this one ignores, with what replaced them: a deployment that still sets
 * one is told at start instead of silently running with a different behaviour.
 */
const RETIRED: Readonly<Record<string, string>> = {
  WATCHDOG_SECONDS:
    'a quiet watch is no longer restarted; a watch still open WATCH_STALL_GRACE_SECONDS past its WATCH_TIMEOUT_SECONDS is',
};

/** One message per retired variable set in `env`, naming it and what replaced it. */
export function retiredSettings(env: Record<string, string | undefined>): string[] {
  return Object.entries(RETIRED)
    .filter(([name]) => env[name] !== undefined)
    .map(([name, instead]) => `${name} is no longer used (${instead}); remove it`);
}
