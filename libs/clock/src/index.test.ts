import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schedule, systemClock, type Clock } from './index.ts';

/** Counts the AbortControllers made while `run` runs. */
function controllersDuring(run: () => void): number {
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    run();
  } finally {
    globalThis.AbortController = Original;
  }
  return made;
}

test('on the system clock, schedule fires once the time has passed, and a cancel clears its timer without an AbortController', async () => {
  let fired = false;
  const made = controllersDuring(() => {
    const cancel = schedule(systemClock, 1, () => (fired = true));
    cancel();
  });
  assert.equal(made, 0);
  // Node fires timers of one duration in the order they were set: the cancelled one's turn has passed.
  await new Promise<void>((resolve) => schedule(systemClock, 1, resolve));
  assert.equal(fired, false, 'the cancelled one never fires');
});

test('on any other clock, schedule sleeps on it and a cancel aborts that sleep', async () => {
  const sleeps: { ms: number; signal: AbortSignal | undefined; wake: () => void }[] = [];
  const clock: Pick<Clock, 'sleep'> = {
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        sleeps.push({ ms, signal, wake: resolve });
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  };
  let fired = 0;
  const cancel = schedule(clock, 50, () => fired++);
  schedule(clock, -5, () => fired++);
  assert.deepEqual(
    sleeps.map((s) => s.ms),
    [50, 0],
  );
  cancel();
  assert.equal(sleeps[0]!.signal?.aborted, true);
  sleeps[1]!.wake();
  await new Promise((r) => setImmediate(r));
  assert.equal(fired, 1);
});
