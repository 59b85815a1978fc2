// The bench's audit arithmetic (bench/lib/figures.ts): where a run's API writes went, per PodSet; and the
// main thread's sleeps that count a process's wake-ups; the CPU of its other threads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import {
  cpuSecondsOf,
  helperCpuSecondsOf,
  sleepsOf,
  ticksOf,
  voluntarySwitches,
  writesPer,
} from '../../bench/lib/figures.ts';
import { meterHelperCpu, meterWakeUps } from '../../bench/lib/cpu-meter.ts';

test('writes per PodSet by kind: writes only, most first, two decimals', () => {
  const audit = {
    'create pods': 3000,
    'get podsets': 300,
    'list pods': 300,
    'update podsets/status': 971,
    'patch podsets': 300,
    'create controllerrevisions': 300,
    'create events': 300,
  };
  assert.equal(
    writesPer(audit, 300),
    'create pods 10.00, update podsets/status 3.24, create controllerrevisions 1.00, create events 1.00, patch podsets 1.00',
  );
  assert.equal(writesPer({ 'get podsets': 5 }, 5), '');
});

test('voluntary context switches read from a /proc/<pid>/status text; a text without them is refused', () => {
  const status =
    'Name:\tnode\nThreads:\t11\nvoluntary_ctxt_switches:\t48213\nnonvoluntary_ctxt_switches:\t907\n';
  assert.equal(voluntarySwitches(status), 48213);
  assert.throws(() => voluntarySwitches('Name:\tnode\n'), /no voluntary_ctxt_switches line/);
});

test('each time the event loop waits for a timer its main thread sleeps: counted as a wake-up', async () => {
  const before = sleepsOf(process.pid);
  const meter = meterWakeUps({ self: process.pid });
  // Three turns that each wait for nothing but a timer. 100 ms, not less: a main thread kept off the CPU past
  // its timer's expiry (a loaded 2-core machine, 20 ms waits: failed once in CI) finds the timer due and
  // never sleeps, so the wait must outlast any such preemption by far.
  for (let i = 0; i < 3; i++) await sleep(100);
  assert.ok(sleepsOf(process.pid) - before >= 3, `sleeps: ${sleepsOf(process.pid) - before}`);
  assert.ok(meter().self! >= 3, `meter: ${JSON.stringify(meter())}`);
});

test("a /proc stat line's CPU ticks, whatever the process's name holds", () => {
  // utime 14th and stime 15th fields; a name with spaces and parentheses does not shift them.
  const stat = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 321 45 0 0 20 0 11 0 123 0 0';
  assert.equal(ticksOf(stat), 366);
});

test("the CPU of a process's other threads is counted as its helpers', not its main thread's", async () => {
  const helpers = meterHelperCpu({ self: process.pid });
  const mainBefore = cpuSecondsOf(process.pid) - helperCpuSecondsOf(process.pid);
  // A thread that burns 300 ms of its own CPU (however long the shared machine takes to give it), then waits
  // to be told to end: an ended thread is no longer in /proc, nor counted.
  const burner = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const start = process.threadCpuUsage();
     for (;;) { const u = process.threadCpuUsage(start); if (u.user + u.system >= 300_000) break; }
     parentPort.postMessage('burnt');
     parentPort.once('message', () => process.exit(0));`,
    { eval: true },
  );
  try {
    await once(burner, 'message');
    const grew = helpers().self!;
    assert.ok(grew >= 0.25, `helpers grew ${grew} s`);
    // The main thread waited: the 300 ms are not its own.
    const mainGrew = cpuSecondsOf(process.pid) - helperCpuSecondsOf(process.pid) - mainBefore;
    assert.ok(mainGrew < 0.25, `the main thread's own grew ${mainGrew} s`);
    // And the other way: 300 ms burnt on the main thread are not the helpers'.
    const start = process.threadCpuUsage();
    for (;;) {
      const u = process.threadCpuUsage(start);
      if (u.user + u.system >= 300_000) break;
    }
    const more = helpers().self! - grew;
    assert.ok(more < 0.25, `helpers grew ${more} s while the main thread burnt`);
  } finally {
    burner.postMessage('end');
    await once(burner, 'exit');
  }
});
