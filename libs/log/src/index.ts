// The one logger type for everything in apps/, libs/ and tools/: pino's shape (fields first, then the
// message), so a pino logger is one, and so is a test's silent or recording logger (libs/testkit) or a plain
// line writer. Only the apps' start-up makes a real one (createLogger in libs/runtime).

/** One level's method: `log.info({ podset }, 'reconciled')`, or a message alone. */
export interface LogFn {
  (fields: object, msg?: string): void;
  (msg: string): void;
}

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /** A logger that adds these fields to each of its lines. */
  child(bindings: Record<string, unknown>): Logger;
}

const drop: LogFn = () => undefined;

/** Says nothing: for a caller that wants no log lines. */
export const silentLogger: Logger = {
  debug: drop,
  info: drop,
  warn: drop,
  error: drop,
  child: () => silentLogger,
};
