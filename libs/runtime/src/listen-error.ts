// A server that cannot bind its port (taken by another process, or a privileged port) is a setting the
// user must change, not a crash: one line naming the port and the flag or variable that chooses it, and
// exit 2 as for any other usage error, instead of Node's stack trace.

/** Listening failed for a reason the user fixes with a setting; the message says which. */
export class ListenError extends Error {
  override name = 'ListenError';
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is already in use by another process',
  EACCES: 'may not be opened by this user (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'cannot be opened: the address is not one of this machine’s',
};

/**
 * `err` from listen() on `port` at `host` as a ListenError naming `setting` (e.g. `HTTP_PORT`, `--port`);
 * any other error is returned as it is.
 */
export function listenError(err: unknown, port: number, host: string | undefined, setting: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' ? REASONS[code] : undefined;
  if (reason === undefined) return err;
  const where = host === undefined ? `port ${port}` : `port ${port} on ${host}`;
  return new ListenError(`${where} ${reason}: choose another with ${setting}`);
}

/** At an entry point: a ListenError becomes one line on stderr and exit 2; anything else is thrown on. */
export function exitOnListenError(prefix: string, err: unknown): never {
  if (!(err instanceof ListenError)) throw err;
  process.stderr.write(`${prefix}: ${err.message}\n`);
  process.exit(2);
}
