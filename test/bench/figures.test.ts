// The bench's audit arithmetic (bench/lib/figures.ts): where a run's API writes went, per PodSet; and the
// main thread's sleeps that count a process's wake-ups.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sleepsOf, voluntarySwitches, writesPer } from '../../bench/lib/figures.ts';
import { meterWakeUps } from '../../bench/lib/cpu-meter.ts';

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
  // Three turns that each wait 20 ms for nothing but a timer.
  for (let i = 0; i < 3; i++) await sleep(20);
  assert.ok(sleepsOf(process.pid) - before >= 3, `sleeps: ${sleepsOf(process.pid) - before}`);
  assert.ok(meter().self! >= 3, `meter: ${JSON.stringify(meter())}`);
});
