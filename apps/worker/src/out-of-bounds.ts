// Values the worker reads from Redis are bounded: a park record's retry time, an expectation's expiry, an
// epoch counter, the queue's settings. Redis is not trusted (any holder of the worker's password writes
// there), and a value no worker would write — a park until 2100, an expectation that never expires — would
// otherwise freeze a PodSet for good, its deletion included. A value out of bounds is reported here (logged
// by its key, never with the value itself, and counted) and ignored by its reader: taken as absent or
// expired.
import type { Logger } from '@podset/log';

/** What kind of value was out of bounds (the label of podset_redis_value_out_of_bounds_total). */
export const BOUNDED_VALUES = ['park', 'expectation', 'epoch', 'queue-setting'] as const;
export type BoundedValue = (typeof BOUNDED_VALUES)[number];

export interface OutOfBounds {
  what: BoundedValue;
  /** The PodSet key (or, for the queue's settings, the setting's name) it was read for. */
  key: string;
  /** How many such values this one read met (default 1). */
  count?: number;
  /** Which bound it broke, in words; never the value read. */
  why: string;
}

export type OutOfBoundsReport = (report: OutOfBounds) => void;

/** Logs each report by its key and hands its count to `count` (the metric). */
export function outOfBoundsReport(
  log: Pick<Logger, 'warn'>,
  count: (what: BoundedValue, n: number) => void,
): OutOfBoundsReport {
  return ({ what, key, count: n = 1, why }) => {
    count(what, n);
    const where = what === 'queue-setting' ? { setting: key } : { podset: key };
    log.warn(
      { value: what, ...where, count: n, why },
      'a value read from Redis is out of bounds (no worker writes it): ignored',
    );
  };
}
