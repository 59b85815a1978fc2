// The apps' logger: pino JSON lines on stdout, through a destination that gives up on a stdout that is
// gone. pino's default destination (sonic-boom) retries a failed write in its exit-time flushSync for
// ever — on EPIPE (the reader of a pipe went away: a parent test killed with Ctrl-C, `npm run demo |
// head`) that is a loop of write(1) = EPIPE and 100 ms sleeps that no SIGTERM ends. Here EPIPE or EBADF
// means "stop logging there": later lines are dropped, the app goes on and still stops when told.
import { writeSync } from 'node:fs';
import { oneOf } from '@podset/config';
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { traceIdsMixin } from './tracing.ts';

/** LOG_LEVEL, declared once for every app. */
export const logEnv = {
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, {
    description: 'pino log level',
    default: 'info',
  }),
} as const;

/** Error codes after which a log destination is gone for good. */
const GONE = new Set(['EPIPE', 'EBADF', 'ECONNRESET', 'EIO']);
/** A full non-blocking pipe: wait a little (a slow reader), then drop the line rather than block. */
const BUSY = new Set(['EAGAIN', 'EBUSY']);
const BUSY_RETRIES = 50;
const BUSY_WAIT_MS = 10;

export interface LineSink {
  write(line: string): void;
  /** False once the destination went away. */
  readonly open: boolean;
  /** Lines dropped because the destination was gone or stayed full. */
  readonly dropped: number;
}

/** Synchronous writes to a file descriptor that never throw and never loop for ever. */
export function fdSink(fd: number, write: typeof writeSync = writeSync): LineSink {
  let open = true;
  let dropped = 0;
  // After a line was dropped on a full pipe, the next lines try once without waiting until one goes
  // through: a stalled reader costs one bounded wait, not one per line.
  let congested = false;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  return {
    get open() {
      return open;
    },
    get dropped() {
      return dropped;
    },
    write(line: string) {
      if (!open) {
        dropped++;
        return;
      }
      let buf = Buffer.from(line, 'utf8');
      for (let busy = 0; buf.length > 0;) {
        try {
          const n = write(fd, buf);
          buf = buf.subarray(n);
          congested = false;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code ?? '';
          if (BUSY.has(code) && !congested && busy++ < BUSY_RETRIES) {
            Atomics.wait(pause, 0, 0, BUSY_WAIT_MS);
            continue;
          }
          if (BUSY.has(code)) congested = true;
          if (GONE.has(code)) open = false;
          dropped++;
          return;
        }
      }
    },
  };
}

export interface LoggerOptions {
  /** The app's name (pino's `name` field on every line). */
  name: string;
  level?: LevelWithSilent | string;
  /** Fields on every line instead of pino's pid and hostname. */
  base?: Record<string, unknown>;
  /** Tests: where lines go instead of stdout. */
  sink?: LineSink;
  /** Each line logged while a span is active carries its trace_id and span_id (set when tracing is on). */
  traceIds?: boolean;
}

let stdioGuarded = false;

/**
 * Node's process.stdout/stderr streams emit 'error' on EPIPE, which without a listener is an uncaught
 * exception. Lines an app writes there directly (before its logger exists) are best effort: a reader that
 * went away must not crash or hang it.
 */
export function guardStdio(): void {
  if (stdioGuarded) return;
  stdioGuarded = true;
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
}

export function createLogger(options: LoggerOptions): Logger {
  guardStdio();
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      ...(options.base !== undefined ? { base: options.base } : {}),
      ...(options.traceIds === true ? { mixin: traceIdsMixin } : {}),
    },
    options.sink ?? fdSink(1),
  );
}
