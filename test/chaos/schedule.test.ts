// The chaos schedule is a function of the seed alone: the same seed gives the same PodSets, changes
// and faults at the same offsets (what the OS scheduler then does with them is not repeatable).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FULL, SHORT, makeSchedule, prng } from './support/chaos.ts';

test('the same seed gives the same schedule; another seed another one', () => {
  assert.deepEqual(makeSchedule({ ...FULL, seed: 7 }), makeSchedule({ ...FULL, seed: 7 }));
  assert.notDeepEqual(makeSchedule({ ...FULL, seed: 7 }), makeSchedule({ ...FULL, seed: 8 }));
});

test('the full schedule has what issues 5 and 11 ask for (template changes among the user actions)', () => {
  const s = makeSchedule(FULL);
  assert.equal(s.initialReplicas.length, 200);
  assert.ok(s.initialReplicas.every((r) => Number.isInteger(r) && r >= 0 && r <= 20));
  const kinds = (k: string) => s.faults.filter((f) => f.kind === k).length;
  assert.equal(kinds('kill-worker'), 11, 'a worker every 5 s over 60 s');
  assert.equal(kinds('kill-leader'), 2);
  assert.equal(kinds('redis-restart-aof'), 1);
  assert.equal(kinds('redis-restart-empty'), 1);
  assert.equal(kinds('api-restart'), 1);
  assert.equal(kinds('stall-watches'), 1);
  assert.equal(kinds('redis-restart-lose-last-second'), 1);
  assert.equal(kinds('etcd-backup'), 1);
  assert.equal(kinds('etcd-restore'), 1);
  const at = (k: string) => s.faults.find((f) => f.kind === k)?.at ?? NaN;
  assert.ok(at('etcd-backup') < at('etcd-restore'), 'the backup is taken before it is restored');
  assert.ok(s.faults.every((f) => f.at >= 0 && f.at < FULL.chaosSeconds * 1000));
  const changes = new Set(s.changes.map((c) => c.kind));
  assert.deepEqual([...changes].sort(), ['delete-pod', 'recreate', 'scale', 'template']);
  assert.ok(s.changes.every((c) => c.at >= 0 && c.at < FULL.chaosSeconds * 1000));
  const short = makeSchedule(SHORT);
  assert.equal(short.initialReplicas.length, 30);
});

test('prng: values in [0, 1), a fixed sequence per seed', () => {
  const a = prng(42);
  const b = prng(42);
  for (let i = 0; i < 1000; i++) {
    const x = a();
    assert.ok(x >= 0 && x < 1);
    assert.equal(x, b());
  }
});
