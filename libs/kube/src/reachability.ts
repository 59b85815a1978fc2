// Whether an app ever reached the API server, kept per KubeConfig (shared by every client built from it, as
// the watcher's lease and watch clients are). Until the server first answers, a failure to connect is
// reported once, with its likely cause, instead of only as each retry's error; once it answers, once more.
// After that nothing: a later outage is the retrying callers' to log, not a start-up problem.
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * Socket and undici codes of a connection that never got established: what a NetworkPolicy that drops
 * (a connect timeout) or rejects (refused, unreachable) looks like from the pod. DNS failures are not here
 * (the in-cluster server is an IP), nor resets or TLS failures (something answered).
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The code that says `err` is a connection to the server that never got established, searched through
 * its `cause` chain (the client wraps the socket's error) and an AggregateError's errors (Node tries each
 * address of a host in turn); undefined for anything else, an answer such as 401 or 403 included.
 */
export function unreachableCode(err: unknown, depth = 0): string | undefined {
  if (!(err instanceof Error) || depth > 5) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return code;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const found = unreachableCode(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return unreachableCode(err.cause, depth + 1);
}

export interface Unreachable {
  /** The server's URL the client tried (scheme, host and port). */
  server: string;
  /** The connection error's code, e.g. ECONNREFUSED. */
  code: string;
  /** The error's message as the client reported it. */
  error: string;
}

export interface ReachabilityEvents {
  /** The first connection failure before the server ever answered. */
  unreachable(u: Unreachable): void;
  /** The first answer after unreachable() was called; `failures` connection failures came before it. */
  reached(r: { server: string; failures: number }): void;
}

/** One app's start: waiting for the first answer, told it is unreachable, or reached. */
export class StartReachability {
  readonly #events: ReachabilityEvents;
  #state: 'waiting' | 'unreachable' | 'reached' = 'waiting';
  #failures = 0;

  constructor(events: ReachabilityEvents) {
    this.#events = events;
  }

  /** The server answered (any status: a 401 or 403 is an answer). */
  answered(server: string): void {
    if (this.#state === 'unreachable') this.#events.reached({ server, failures: this.#failures });
    this.#state = 'reached';
  }

  /** A request failed without an answer. */
  failed(err: unknown, server: string): void {
    if (this.#state === 'reached') return;
    const code = unreachableCode(err);
    if (code === undefined) return;
    this.#failures++;
    if (this.#state === 'unreachable') return;
    this.#state = 'unreachable';
    this.#events.unreachable({ server, code, error: err instanceof Error ? err.message : String(err) });
  }
}

const watched = new WeakMap<KubeConfig, StartReachability>();

/** Reports to `events` how the clients built from `kc` first fare (replacing an earlier watch). */
export function watchApiReachability(kc: KubeConfig, events: ReachabilityEvents): () => void {
  const start = new StartReachability(events);
  watched.set(kc, start);
  return () => {
    if (watched.get(kc) === start) watched.delete(kc);
  };
}

/** For the client: an answer came from `server`. */
export function apiAnswered(kc: KubeConfig, server: string): void {
  watched.get(kc)?.answered(server);
}

/** For the client: a request to `server` failed without an answer. */
export function apiFailed(kc: KubeConfig, err: unknown, server: string): void {
  watched.get(kc)?.failed(err, server);
}
