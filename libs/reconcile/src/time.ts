// Time as the planner sees it: given, never read from a clock.
import type { Timestamp } from './types.ts';

/** Milliseconds since the epoch; undefined for a missing or unparsable timestamp. */
export function toMillis(t: Timestamp | number | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = typeof t === 'number' ? t : t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** RFC 3339 with second precision, as Kubernetes writes metav1.Time: `2026-01-02T03:04:05Z`. */
export function formatTime(t: Date | number): string {
  const ms = typeof t === 'number' ? t : t.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`invalid time: ${String(t)}`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
