// pacedReads alone, on a body whose chunks arrive one poll of the event loop apart, as a socket's reads from
// the kernel do when a backlog is larger than one read: what a turn takes and when it waits. (The real
// client and server are in paced-reads.test.ts; on loopback one read can take a whole backlog, so only a
// body that controls its deliveries shows a turn going on across polls.)
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import type { Clock } from '@podset/clock';
import { pacedReads } from './paced-reads.ts';

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

/** A clock whose sleeps are recorded and over at once. */
function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => 0,
    elapsed: () => 0,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}

async function turnsOf(body: Readable, maxTurnBytes: number, clock: Clock): Promise<string[]> {
  const turns: string[] = [];
  for await (const turn of pacedReads(body, { pauseMs: 50, maxTurnBytes }, clock))
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
