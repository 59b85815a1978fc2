// The CPU profile summary (bench/profile-summary.ts): self and total time per function, start-up and idle
// left out, a recursive function counted once per sample, and the time beneath one frame; a heap profile's
// bytes per function the same way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarizeHeap, type HeapNode } from '../../bench/lib/heap-profile-summary.ts';
import { summarize, type CpuProfile } from '../../bench/lib/profile-summary.ts';

const frame = (functionName: string, url = 'file:///repo/libs/queue/src/x.ts', lineNumber = 0) => ({
  functionName,
  url,
  lineNumber,
});

// (root) → main → send → write; main → walk → walk (recursion); (idle).
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 7] },
    { id: 2, callFrame: frame('main'), children: [3, 5] },
    {
      id: 3,
      callFrame: frame('send', 'file:///repo/node_modules/ioredis/built/Redis.js', 326),
      children: [4],
    },
    { id: 4, callFrame: frame('write', '') },
    { id: 5, callFrame: frame('walk'), children: [6] },
    { id: 6, callFrame: frame('walk') },
    { id: 7, callFrame: frame('(idle)', '') },
  ],
  startTime: 0,
  // Each sample stands for the time until the next: 1 ms of start-up in `main`, then write 2 ms, idle
  // 4 ms, the inner walk 3 ms, write 5 ms (the last sample: as long as the one before it).
  samples: [2, 4, 7, 6, 4],
  timeDeltas: [0, 1000, 2000, 4000, 3000],
};

test('self and total per function; idle samples are not counted', () => {
  const s = summarize(profile);
  assert.equal(s.sampledUs, 1000 + 2000 + 3000 + 3000);
  const self = Object.fromEntries(s.self.map((t) => [t.label, t.us]));
  assert.deepEqual(self, {
    'main libs/queue/src/x.ts:1': 1000,
    'write :1': 5000,
    'walk libs/queue/src/x.ts:1': 3000,
  });
  const total = Object.fromEntries(s.total.map((t) => [t.label, t.us]));
  assert.equal(total['main libs/queue/src/x.ts:1'], 9000);
  assert.equal(total['send node_modules/ioredis/built/Redis.js:327'], 5000);
  assert.equal(total['walk libs/queue/src/x.ts:1'], 3000, 'a recursive function counts once per sample');
  assert.equal(total['(root) :1'], s.sampledUs);
});

test('skipMs leaves start-up out', () => {
  const s = summarize(profile, { skipMs: 1 });
  assert.equal(s.sampledUs, 2000 + 3000 + 3000);
  assert.equal(s.self.find((t) => t.label.startsWith('main '))?.us, undefined);
});

test('under: only the samples beneath a frame, timed by the frames above it', () => {
  const s = summarize(profile, { under: 'send ' });
  assert.equal(s.sampledUs, 5000);
  assert.deepEqual(
    s.total.map((t) => [t.label, t.us]),
    [['write :1', 5000]],
  );
});

test('a heap profile: bytes allocated per function, self and total, a recursive one counted once', () => {
  const node = (
    name: string,
    selfSize: number,
    children: HeapNode[] = [],
    url = 'file:///repo/apps/watcher/src/x.ts',
  ) => ({
    callFrame: frame(name, url),
    selfSize,
    children,
  });
  // (root) → main (100) → parse (2,000) ; main → walk (300) → walk (400) → encode (50).
  const head = node(
    '(root)',
    0,
    [node('main', 100, [node('parse', 2000), node('walk', 300, [node('walk', 400, [node('encode', 50)])])])],
    '',
  );
  const h = summarizeHeap({ head });
  assert.equal(h.bytes, 2850);
  assert.deepEqual(
    h.self.map((t) => [t.label, t.bytes]),
    [
      ['parse apps/watcher/src/x.ts:1', 2000],
      ['walk apps/watcher/src/x.ts:1', 700],
      ['main apps/watcher/src/x.ts:1', 100],
      ['encode apps/watcher/src/x.ts:1', 50],
    ],
  );
  const total = Object.fromEntries(h.total.map((t) => [t.label, t.bytes]));
  assert.equal(total['main apps/watcher/src/x.ts:1'], 2850);
  assert.equal(total['walk apps/watcher/src/x.ts:1'], 750, 'the inner walk is inside the outer one');
  assert.equal(total['(root) :1'], 2850);
});
