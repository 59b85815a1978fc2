// The watcher's Prometheus metrics (prom-client). Counters live here, not in the per-term objects, so
// they keep counting across leadership terms. Names and labels shared with apps/worker where they
// overlap (podset_kube_requests_total, podset_kube_rate_limiter_wait_seconds_total).
import type { EventOutcome } from './change-gate.ts';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RequestRecord } from '@podset/kube';
import { appRegistry, kubeRequestMetrics, queueDepthGauge } from '@podset/runtime';
import { CHECKPOINT_REFUSED, type RestartReason, type WatchHooks } from './watch-loop.ts';

/** Restart reasons as exported: the ops names (timeout, reset, stall, gone, throttled, error, data-loss). */
export function restartLabel(reason: RestartReason): string {
  switch (reason) {
    case 'closed':
      return 'timeout';
    case 'reset':
    case 'unreachable':
      return 'reset';
    case 'stall':
    case 'gone':
    case 'throttled':
      return reason;
    case 'relist-requested':
      return 'data-loss';
    default:
      return 'error';
  }
}

/**
 * Relist causes as exported: initial (no checkpoint), gone (410, or the API refused the checkpoint's RV: the
 * API said the version is no good here either way), data-loss (Redis lost its data).
 */
export function relistLabel(cause: string): string {
  if (cause.includes('410') || cause === CHECKPOINT_REFUSED) return 'gone';
  if (cause.includes('redis')) return 'data-loss';
  return 'initial';
}

export interface WatcherMetrics {
  registry: Registry;
  hooks: WatchHooks;
  onEnqueued(source: 'live' | 'bulk', count: number): void;
  onEventOutcomes(counts: Readonly<Record<EventOutcome, number>>): void;
  /** A value read from Redis was out of bounds and repaired (queue-add-input: one that broke BullMQ's adds). */
  onOutOfBounds(what: 'queue-add-input'): void;
  onRequest(record: RequestRecord): void;
  setLeader(leading: boolean): void;
  /** A scrape-time reading of the queue's job counts by BullMQ state (rejects: no samples). */
  setQueueDepth(queue: string, read: () => Promise<Record<string, number>>): void;
}

export function createWatcherMetrics(): WatcherMetrics {
  const registry = appRegistry('podset_watcher_');
  const leader = new Gauge({
    name: 'podset_watcher_leader',
    help: '1 while this replica holds the Lease and watches, else 0',
    registers: [registry],
  });
  leader.set(0);
  const events = new Counter({
    name: 'podset_watch_events_total',
    help: 'Watch events received, by resource and type',
    labelNames: ['resource', 'type'],
    registers: [registry],
  });
  const restarts = new Counter({
    name: 'podset_watch_restarts_total',
    help: 'Watches restarted, by resource and reason (timeout, reset, stall, gone, throttled, error, data-loss)',
    labelNames: ['resource', 'reason'],
    registers: [registry],
  });
  const relists = new Counter({
    name: 'podset_watch_relists_total',
    help: 'Completed relists, by resource and reason (initial, gone, data-loss)',
    labelNames: ['resource', 'reason'],
    registers: [registry],
  });
  const enqueued = new Counter({
    name: 'podset_enqueued_total',
    help: 'Reconcile requests made to the queue, by source (live, bulk)',
    labelNames: ['source'],
    registers: [registry],
  });
  const outcomes = new Counter({
    name: 'podset_watch_event_outcomes_total',
    help:
      'Watch events by what they came to: requested (a live request), coalesced (shared one), covered ' +
      "(the key's job already due no later than a request would make it), merged (its request merged into the key's " +
      'pending job in the fold), unchanged (nothing a plan reads), superseded (a later event of its object in ' +
      'its batch was folded for it), unkeyed (no PodSet)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const outOfBounds = new Counter({
    name: 'podset_redis_value_out_of_bounds_total',
    help: 'Values read from Redis that no operator process writes, by what they were (repaired or ignored)',
    labelNames: ['what'],
    registers: [registry],
  });
  outOfBounds.inc({ what: 'queue-add-input' }, 0);
  const onRequest = kubeRequestMetrics(registry);
  return {
    registry,
    hooks: {
      event: (resource, type) => events.inc({ resource, type }),
      restart: (resource, reason) => restarts.inc({ resource, reason: restartLabel(reason) }),
      relisted: (resource, cause) => relists.inc({ resource, reason: relistLabel(cause) }),
    },
    onEnqueued: (source, count) => enqueued.inc({ source }, count),
    onEventOutcomes: (counts) => {
      for (const [outcome, n] of Object.entries(counts)) if (n > 0) outcomes.inc({ outcome }, n);
    },
    onOutOfBounds: (what) => outOfBounds.inc({ what }),
    onRequest,
    setLeader: (leading) => leader.set(leading ? 1 : 0),
    setQueueDepth: (queue, read) => queueDepthGauge(registry, queue, read),
  };
}
