// A watch body read in paced turns, for a watch busy enough that waking once per event costs more than its
// events do. A turn takes every chunk already buffered, hands them on as one, then waits `pauseMs` before it
// looks again; what arrives meanwhile stays in the socket (the caller asks undici for a one-byte body buffer,
// so its parser pauses after each chunk and the socket is left unread), so the process is not woken for it.
// The next turn takes all of it at once. An event after a quiet spell is read at once: the wait follows a turn.

import type { Readable } from 'node:stream';
import type { Clock } from '@podset/clock';

/**
 * The body's bytes in turns, each turn's chunks joined: never an empty Buffer. Ends when the body ends;
 * throws the body's error (after the turn's chunks read before it were handed on); a body closed before its
 * end throws as a premature close, as iterating the body would. The pauses are `clock`'s sleeps; an abort of
 * `signal` during one ends it at once with the abort's reason.
 */
export async function* pacedReads(
  body: Readable,
  pauseMs: number,
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
  try {
    for (;;) {
      const turn: Buffer[] = [];
      // Each read() resumes undici's parser, which parses the next chunk the socket holds there and then.
      for (let chunk = body.read() as Buffer | null; chunk !== null; chunk = body.read() as Buffer | null) {
        turn.push(chunk);
      }
      if (turn.length > 0) {
        yield turn.length === 1 ? turn[0]! : Buffer.concat(turn);
        await clock.sleep(pauseMs, signal);
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
