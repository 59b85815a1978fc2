// A watch body read in paced turns, for a watch whose events come one at a time: each would otherwise wake the
// process and run the reader's whole pipeline on its own. A turn takes everything that has arrived and hands
// it on as one; then the reader leaves the stream unread for `pauseMs`. What arrives meanwhile waits in the
// kernel and does not wake the process: the caller's socket buffers one byte, so it stops reading from the
// kernel after each read (credentials.ts), and undici's parser, given a one-byte body buffer, stops after each
// chunk. The next turn takes all of it, a poll of the event loop at a time, until a poll brings nothing. A
// turn that reaches `maxTurnBytes` is followed by the next at once: pacing never caps how fast a watch is read
// (an API server closes a watch it cannot hand its events). An event after a quiet spell is read at once: a
// wait follows a turn, it never precedes one. A pause is shortened when the watch is busy: at the rate the
// last turn's bytes came in, it lasts no longer than it takes `maxWaitingBytes` to arrive, so what waits in
// the kernel stays about that size however fast the server writes (a server whose writes to a full
// connection block for long closes the watch), while a watch that trickles gets the whole pause.

import type { Readable } from 'node:stream';
import type { Clock } from '@podset/clock';

export interface Pacing {
  /** The wait after a turn. */
  pauseMs: number;
  /** A turn ends at this size, and is followed by the next at once. */
  maxTurnBytes: number;
  /** The most a pause may leave waiting, by the rate the last turn's bytes came in (see the header). */
  maxWaitingBytes: number;
}

/**
 * A paced watch's bounds (KubeClient's watches). A turn of 1 MiB is followed by the next at once. A pause leaves
 * at most about 512 KiB waiting in the connection's TCP buffers, so that a longer pause does not leave more
 * where the watch is busy: about what a pause of 50 ms left at the bench's fast bursts (~7 MB a second). Less
 * costs more turns there (128 KiB: the watcher 5 % more CPU per pod); Linux grows a busy connection's buffers
 * to megabytes.
 */
export const WATCH_PACING: Omit<Pacing, 'pauseMs'> = {
  maxTurnBytes: 1024 * 1024,
  maxWaitingBytes: 512 * 1024,
};

/**
 * The wait after a turn of `bytes` that came in over `sinceMs` (since the previous turn ended): `pauseMs`,
 * or less when at that rate more than `maxWaitingBytes` would arrive meanwhile.
 */
export function pauseAfter(pacing: Pacing, bytes: number, sinceMs: number): number {
  if (bytes >= pacing.maxTurnBytes) return 0;
  // A clock that did not move (a coarse or a test's) counts as 1 ms: no rate is taken as infinite.
  const atRate = Math.floor((pacing.maxWaitingBytes * Math.max(1, sinceMs)) / Math.max(1, bytes));
  return Math.min(pacing.pauseMs, atRate);
}

/**
 * The body's bytes in turns, each turn's chunks joined: never an empty Buffer. Ends when the body ends;
 * throws the body's error (after the turn's chunks read before it were handed on); a body closed before its
 * end throws as a premature close, as iterating the body would. The pauses are `clock`'s sleeps; an abort of
 * `signal` during one ends it at once with the abort's reason.
 */
export async function* pacedReads(
  body: Readable,
  pacing: Pacing,
  clock: Clock,
  signal?: AbortSignal,
): AsyncGenerator<Buffer> {
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const onReadable = () => wake?.();
  const onEnd = () => {
    ended = true;
    wake?.();
  };
  const onError = (error: unknown) => {
    failure ??= { error };
    wake?.();
  };
  const onClose = () => {
    if (!ended) failure ??= { error: prematureClose() };
    wake?.();
  };
  body.on('readable', onReadable).on('end', onEnd).on('error', onError).on('close', onClose);
  /** Resolves at the next 'readable', end or error, or once the event loop has polled its sockets again. */
  const nextPoll = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      // The first immediate runs before the loop's next poll, the second after it.
      setImmediate(() => setImmediate(resolve));
    });
  // When the last turn ended (the bytes of the next came in since): the rate a pause is sized by.
  let lastTurnEnd = clock.elapsed();
  try {
    for (;;) {
      const turn: Buffer[] = [];
      let bytes = 0;
      for (;;) {
        let drained = 0;
        // Each read() resumes undici's parser, which parses the next chunk the socket holds there and then.
        for (let chunk = body.read() as Buffer | null; chunk !== null; chunk = body.read() as Buffer | null) {
          turn.push(chunk);
          drained += chunk.length;
        }
        bytes += drained;
        // A poll that brought nothing: the kernel held no more when the socket last read.
        if (drained === 0 || bytes >= pacing.maxTurnBytes) break;
        await nextPoll();
        wake = undefined;
      }
      if (turn.length > 0) {
        const turnEnd = clock.elapsed();
        const pauseMs = pauseAfter(pacing, bytes, turnEnd - lastTurnEnd);
        yield turn.length === 1 ? turn[0]! : Buffer.concat(turn, bytes);
        // What the next turn takes arrives from here on: during the consumer's work, the pause, the turn.
        lastTurnEnd = turnEnd;
        if (pauseMs > 0) await clock.sleep(pauseMs, signal);
        continue;
      }
      if (failure !== undefined) throw failure.error;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    body.off('readable', onReadable).off('end', onEnd).off('error', onError).off('close', onClose);
    // The caller destroys the body next; undici may still report its request's abort on it then.
    body.on('error', ignore);
  }
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

function ignore(): void {}
