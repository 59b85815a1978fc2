// The bench's progress lines while a phase waits for pods: what a line says, and that the tracker prints
// them from start() to stop() only (mocked timers: no real waiting).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressLine, startProgress, type ProgressState } from '../../bench/lib/progress.ts';
import { Tracker } from '../../bench/lib/tracker.ts';
import type { Client } from '../../bench/lib/client.ts';

const at = (elapsedSeconds: number, readyPods: number): ProgressState => ({
  elapsedSeconds,
  createdPods: 3400,
  readyPods,
  convergedPodSets: 120,
});

test('a progress line: elapsed, pods created and ready of the target, PodSets converged of the target', () => {
  assert.equal(
    progressLine('operator', at(12.3, 2345), { pods: 10_000, podSets: 1000 }),
    'operator: 12 s, pods 3,400 created, 2,345/10,000 ready, PodSets 120/1,000 converged',
  );
});

test('after the first line, each says how many pods became ready since the last', () => {
  assert.equal(
    progressLine('peer', at(10, 2345), { pods: 10_000, podSets: 1000 }, at(5, 1833)),
    'peer: 10 s, pods 3,400 created, 2,345/10,000 ready (+512 in 5 s), PodSets 120/1,000 converged',
  );
});

test('without a PodSet target (the limit: no controller writes status) the line has no PodSets part', () => {
  assert.equal(progressLine('limit', at(1, 0), { pods: 30 }), 'limit: 1 s, pods 3,400 created, 0/30 ready');
});

test('startProgress writes a line per period until stopped', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const lines: string[] = [];
  let ready = 0;
  const stop = startProgress(
    'operator',
    () => at(0, (ready += 10)),
    { pods: 30 },
    (l) => lines.push(l),
    5000,
  );
  t.mock.timers.tick(4999);
  assert.equal(lines.length, 0);
  t.mock.timers.tick(1);
  t.mock.timers.tick(5000);
  assert.deepEqual(lines, [
    'operator: 0 s, pods 3,400 created, 10/30 ready',
    'operator: 0 s, pods 3,400 created, 20/30 ready (+10 in 0 s)',
  ]);
  stop();
  t.mock.timers.tick(20_000);
  assert.equal(lines.length, 2);
});

test('the tracker prints progress of its phase between start() and stop(), and not before', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  // The tracker's watches are not started: its counts stay zero, which is enough for the lines.
  const tracker = new Tracker({} as Client, 'ps-');
  const lines: string[] = [];
  tracker.reportProgress('operator', { pods: 30, podSets: 3 }, (l) => lines.push(l));
  t.mock.timers.tick(10_000);
  assert.equal(lines.length, 0, 'no line before the clock starts');
  tracker.start();
  t.mock.timers.tick(10_000);
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^operator: \d+ s, pods 0 created, 0\/30 ready, PodSets 0\/3 converged$/);
  tracker.stop();
  t.mock.timers.tick(10_000);
  assert.equal(lines.length, 2, 'no line after stop()');
});
