// A Logger for tests that keeps its lines, so a test asserts what was said (level, message, fields) instead of
// parsing JSON output or writing a stub of its own.
import type { LogFn, Logger } from '@podset/log';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogLine {
  level: LogLevel;
  /** The message; '' for a line logged without one. */
  msg: string;
  /** The child loggers' bindings and the fields of the call (an Error under `err`, as pino puts it). */
  fields: Record<string, unknown>;
}

export class RecordingLogger implements Logger {
  /** Every line, in order: this logger's and its children's. */
  readonly lines: LogLine[];
  readonly #bindings: Record<string, unknown>;
  readonly debug = this.#level('debug');
  readonly info = this.#level('info');
  readonly warn = this.#level('warn');
  readonly error = this.#level('error');

  constructor(lines: LogLine[] = [], bindings: Record<string, unknown> = {}) {
    this.lines = lines;
    this.#bindings = bindings;
  }

  /** Its lines go to the same list, with these fields added. */
  child(bindings: Record<string, unknown>): RecordingLogger {
    return new RecordingLogger(this.lines, { ...this.#bindings, ...bindings });
  }

  /** The messages of the lines at this level (at every level when none is given), in order. */
  messages(level?: LogLevel): string[] {
    return this.at(level).map((line) => line.msg);
  }

  /** The lines at this level (every line when none is given), in order. */
  at(level?: LogLevel): LogLine[] {
    return this.lines.filter((line) => level === undefined || line.level === level);
  }

  #level(level: LogLevel): LogFn {
    return (first: object | string, msg?: string) => {
      const own = typeof first === 'string' ? {} : first instanceof Error ? { err: first } : first;
      this.lines.push({
        level,
        msg: typeof first === 'string' ? first : (msg ?? ''),
        fields: { ...this.#bindings, ...own },
      });
    };
  }
}
