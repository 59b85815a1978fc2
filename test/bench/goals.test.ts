// The arithmetic behind issue 21's benchmark rows: per-pod CPU of the operator's processes, the ceiling
// the shared ones imply, and when a watcher's relist began according to the audit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  firstRequestAt,
  operatorSeconds,
  perPod,
  wakeUpsPerPod,
  workersSeconds,
} from '../../bench/lib/goals.ts';

const run = { 'kube-sim': 9, bench: 1, watcher: 4.1, redis: 2.1, 'worker-0': 3, 'worker-1': 2.5 };

test('the operator is the watcher, the workers and Redis; not kube-sim, not the bench', () => {
  assert.equal(operatorSeconds(run), 4.1 + 2.1 + 3 + 2.5);
  assert.equal(workersSeconds(run), 5.5);
});

test('per pod in milliseconds; the ceiling is one core over the larger shared cost', () => {
  const p = perPod(run, 10_000);
  assert.ok(Math.abs(p.watcherMs - 0.41) < 1e-9);
  assert.ok(Math.abs(p.redisMs - 0.21) < 1e-9);
  assert.ok(Math.abs(p.workersMs - 0.55) < 1e-9);
  assert.ok(Math.abs(p.operatorMs - 1.17) < 1e-9);
  // The example: watcher 0.41 ms per pod → 2,439 pods/s.
  assert.equal(Math.floor(p.ceilingPodsPerSecond), 2439);
  // Redis the larger: it sets the ceiling.
  assert.equal(perPod({ ...run, redis: 5 }, 10_000).ceilingPodsPerSecond, 2000);
});

test('a shared process below one /proc tick gives a finite ceiling, not infinity', () => {
  const p = perPod({ watcher: 0, redis: 0, 'worker-0': 0.05 }, 60);
  assert.ok(Number.isFinite(p.ceilingPodsPerSecond));
  assert.equal(p.ceilingPodsPerSecond, 6000);
});

test('a missing process is not a figure (NaN), so the row cannot claim it met', () => {
  assert.ok(Number.isNaN(perPod({ 'worker-0': 1 }, 10).watcherMs));
});

test('wake-ups per pod: the workers summed, the peer from its own run; a missing process is NaN', () => {
  const operator = { 'kube-sim': 900, watcher: 12_000, redis: 30_000, 'worker-0': 8_000, 'worker-1': 7_000 };
  assert.deepEqual(wakeUpsPerPod(operator, { 'kube-sim': 800, peer: 5_000 }, 3_000), {
    watcher: 4,
    workers: 5,
    redis: 10,
    peer: 5_000 / 3_000,
  });
  const none = wakeUpsPerPod({}, {}, 3_000);
  assert.ok(Number.isNaN(none.watcher) && Number.isNaN(none.redis) && Number.isNaN(none.peer));
  assert.equal(none.workers, 0);
});

test('the first request began at its end time minus its latency, at or after the spawn', () => {
  const spawned = Date.parse('2026-11-26T10:00:00.000Z');
  const entries = [
    // Ended after the spawn but began before it: the previous watcher's watch, closed when it stopped.
    { time: '2026-11-26T10:00:00.500Z', latencyMs: 9000 },
    { time: '2026-11-26T10:00:02.000Z', latencyMs: 250 },
    { time: '2026-11-26T10:00:01.900Z', latencyMs: 20 },
  ];
  assert.equal(firstRequestAt(entries, spawned), Date.parse('2026-11-26T10:00:01.750Z'));
  assert.equal(firstRequestAt([], spawned), undefined);
});
