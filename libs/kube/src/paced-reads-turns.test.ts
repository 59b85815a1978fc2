// pacedReads alone, on a body whose chunks arrive one poll of the event loop apart, as a socket's reads from
// the kernel do when a backlog is larger than one read: what a turn takes and when it waits. (The real
// client and server are in paced-reads.test.ts; on loopback one read can take a whole backlog, so only a
// body that controls its deliveries shows a turn going on across polls.)
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import type { Clock } from '@podset/clock';
import { pacedReads, pauseAfter, WATCH_PACING } from './paced-reads.ts';

/** Hands out one chunk per read the consumer asks for, on the next turn of the event loop; then ends. */
class Deliveries extends Readable {
  readonly #chunks: Buffer[];
  constructor(chunks: readonly string[]) {
    // One byte, as a paced watch's body: each chunk is a read of its own.
    super({ highWaterMark: 1 });
    this.#chunks = chunks.map((c) => Buffer.from(c));
  }
  override _read(): void {
    setImmediate(() => this.push(this.#chunks.shift() ?? null));
  }
}

/**
 * A clock whose sleeps are recorded and over at once. `stepMs`: how far its elapsed time moves each time it
 * is read (0: never), so that a turn's bytes seem to have come in over a known time.
 */
function recordingClock(stepMs = 0): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  let t = 0;
  return {
    sleeps,
    now: () => 0,
    elapsed: () => (t += stepMs),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}

async function turnsOf(
  body: Readable,
  maxTurnBytes: number,
  clock: Clock,
  maxWaitingBytes = 1 << 20,
): Promise<string[]> {
  const turns: string[] = [];
  for await (const turn of pacedReads(body, { pauseMs: 50, maxTurnBytes, maxWaitingBytes }, clock))
    turns.push(turn.toString());
  return turns;
}

test('a turn takes chunks that arrive a poll apart until a poll brings nothing, then waits the pause', async () => {
  const clock = recordingClock();
  // Were a turn only what the body held when it began, each chunk would be a turn of its own.
  const turns = await turnsOf(new Deliveries(['a', 'b', 'c', 'd']), 1 << 20, clock);
  assert.deepEqual(turns, ['abcd']);
  assert.deepEqual(clock.sleeps, [50]);
});

test('a turn that reaches maxTurnBytes is handed on and followed by the next at once, without a pause', async () => {
  const clock = recordingClock();
  const turns = await turnsOf(new Deliveries(['aaaa', 'bbbb', 'cccc', 'dd', 'ee']), 10, clock);
  // 12 bytes reach the limit of 10: no pause after them; the last turn (4 bytes) is followed by one.
  assert.deepEqual(turns, ['aaaabbbbcccc', 'ddee']);
  assert.deepEqual(clock.sleeps, [50]);
});

test('a busy watch pauses only as long as it takes maxWaitingBytes to come in at its rate', async () => {
  // Each turn's bytes came in over 10 ms (the clock moves 10 ms between the reads of it: the turn's end,
  // the previous one's): 1,000 bytes in 10 ms is 100 a ms, so a pause of at most 2 ms leaves 200 waiting.
  const clock = recordingClock(10);
  const chunk = 'x'.repeat(1000);
  const body = new Deliveries([chunk]);
  await turnsOf(body, 1 << 20, clock, 200);
  assert.deepEqual(clock.sleeps, [2]);
});

test('a watch that trickles gets the whole pause', async () => {
  // 4 bytes in 10 ms: the pause would leave far less than maxWaitingBytes waiting.
  const clock = recordingClock(10);
  await turnsOf(new Deliveries(['abcd']), 1 << 20, clock, 200);
  assert.deepEqual(clock.sleeps, [50]);
});

test('pauseAfter: the pause, shortened by the rate, none after a turn of maxTurnBytes', () => {
  // The watcher's: 150 ms, shortened to what 512 KiB take (a watch's bounds, as KubeClient paces it).
  const pacing = { pauseMs: 150, ...WATCH_PACING };
  // A kubelet's pace, ~700 KB a second: 512 KiB take 749 ms to come in, more than the pause.
  assert.equal(pauseAfter(pacing, 70_000, 100), 150);
  // 7 MB a second: 74 ms.
  assert.equal(pauseAfter(pacing, 700_000, 100), 74);
  // A burst of 24 MB a second: 21 ms.
  assert.equal(pauseAfter(pacing, 240_000, 10), 21);
  // A clock that did not move counts as 1 ms: 512 KiB in 1 ms allows a pause of 1 ms.
  assert.equal(pauseAfter(pacing, 512 * 1024, 0), 1);
  assert.equal(pauseAfter(pacing, 1 << 20, 1000), 0);
});
