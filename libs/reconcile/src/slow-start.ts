// Slow start: create in batches of 1, 2, 4, … (capped at `burst`), stopping at the first batch with a
// failure, so a persistent error (quota, admission) costs a few calls rather than hundreds.

/** Batch sizes for `n` creates: 1, 2, 4, … each at most `burst`; they sum to `n`. */
export function slowStartBatches(n: number, burst: number): number[] {
  const cap = Math.max(1, Math.floor(burst));
  const batches: number[] = [];
  let remaining = Math.max(0, Math.floor(n));
  let size = 1;
  while (remaining > 0) {
    const b = Math.min(size, cap, remaining);
    batches.push(b);
    remaining -= b;
    size = Math.min(size * 2, cap);
  }
  return batches;
}
