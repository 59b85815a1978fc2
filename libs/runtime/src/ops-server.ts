// The operations endpoint every app serves, after controller-runtime's healthz: the app registers named
// checks, /healthz runs the liveness ones (only `ping` unless the app adds more: an outage of Redis or the
// API must make a pod unready, never restart it), /readyz the readiness ones, and /metrics is the app's
// registry. Each check runs under a timeout, so a dependency that never answers costs a probe one
// "not ready" instead of the kubelet's timeout.
import http from 'node:http';
import type { Registry } from 'prom-client';
import { systemClock, type Clock } from '@podset/clock';
import { API_PROBE_TIMEOUT_MS } from './limits.ts';
import { listenError } from './listen-error.ts';

/**
 * Resolves when the thing checked is fine; a rejection's first line is the reason shown. `signal` aborts at
 * the check's timeout; a check that then settles at once decides the result itself.
 */
export type Check = (signal: AbortSignal) => Promise<void>;

export interface CheckOptions {
  /** A check that has not settled by then fails with `no answer in N ms`. Default API_PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
  /**
   * A result is reused this long after it settled, and requests meanwhile share the running check, so
   * probes and scrapers polling often cost one check. Default 0: every request runs it.
   */
  reuseMs?: number;
}

/** What one request to the operations endpoint answers. */
export interface OpsAnswer {
  status: number;
  type: string;
  body: string;
}

export interface OpsListenOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default: every address (Node's default: IPv6 and IPv4 where the machine has IPv6). */
  host?: string;
  /** The variable or flag that sets the port, named when it cannot be bound. Default HTTP_PORT. */
  setting?: string;
}

export interface OpsListener {
  /** The port actually bound. */
  port: number;
  /** The address it listens on. */
  host: string;
  close(): Promise<void>;
}

interface Result {
  name: string;
  /** Undefined when the check passed. */
  failure: string | undefined;
}

interface NamedCheck {
  name: string;
  run: () => Promise<Result>;
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;
const TEXT = 'text/plain; charset=utf-8';

export class OpsManager {
  readonly #registry: Registry;
  readonly #clock: Pick<Clock, 'elapsed' | 'sleep'>;
  readonly #checks = { healthz: new Map<string, NamedCheck>(), readyz: new Map<string, NamedCheck>() };
  readonly #info = new Map<string, () => string | number | boolean>();

  constructor(options: { registry: Registry; clock?: Pick<Clock, 'elapsed' | 'sleep'> }) {
    this.#registry = options.registry;
    this.#clock = options.clock ?? systemClock;
    // As controller-runtime's healthz.Ping: the process answers, so it is alive.
    this.addHealthzCheck('ping', () => Promise.resolve());
  }

  /** A liveness check: failing, /healthz answers 503 and the kubelet restarts the container. */
  addHealthzCheck(name: string, check: Check, options: CheckOptions = {}): this {
    return this.#add('healthz', name, check, options);
  }

  /** A readiness check: failing, /readyz answers 503 naming it, and the pod leaves its Services. */
  addReadyzCheck(name: string, check: Check, options: CheckOptions = {}): this {
    return this.#add('readyz', name, check, options);
  }

  /** A `name: value` line at the end of /readyz's body that does not decide readiness (e.g. `leader`). */
  addReadyzInfo(name: string, value: () => string | number | boolean): this {
    this.#claim(name, this.#checks.readyz.has(name) || this.#info.has(name));
    this.#info.set(name, value);
    return this;
  }

  /**
   * The answer to `target` (a request's path and query), or undefined for a path that is not ours:
   * /healthz and /readyz (`?verbose`: Kubernetes' `[+]name ok` lines), /healthz/<name> and /readyz/<name>
   * for one check, /metrics.
   */
  async answer(target: string): Promise<OpsAnswer | undefined> {
    const url = new URL(target, 'http://ops');
    if (url.pathname === '/metrics') {
      try {
        return { status: 200, type: this.#registry.contentType, body: await this.#registry.metrics() };
      } catch (err) {
        return { status: 500, type: TEXT, body: `${reasonOf(err)}\n` };
      }
    }
    const [, endpoint, name, ...rest] = url.pathname.split('/');
    if ((endpoint !== 'healthz' && endpoint !== 'readyz') || rest.length > 0) return undefined;
    const checks = this.#checks[endpoint];
    if (name !== undefined) return await one(endpoint, checks.get(name), name);
    const results = await Promise.all([...checks.values()].map((c) => c.run()));
    const info = endpoint === 'readyz' ? [...this.#info].map(([k, v]) => `${k}: ${String(v())}`) : [];
    return report(endpoint, results, info, url.searchParams.has('verbose'));
  }

  /** Serves answer() on its own port; anything else is 404. A port that cannot be bound is a ListenError. */
  async listen(options: OpsListenOptions): Promise<OpsListener> {
    const server = http.createServer((req, res) => {
      this.answer(req.url ?? '/').then(
        (a) => send(res, a ?? { status: 404, type: TEXT, body: 'not found\n' }),
        (err: unknown) => send(res, { status: 500, type: TEXT, body: `${reasonOf(err)}\n` }),
      );
    });
    const { port, host } = options;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => reject(listenError(err, port, host, options.setting ?? 'HTTP_PORT')));
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const bound = typeof address === 'object' && address !== null ? address : undefined;
    return {
      port: bound?.port ?? port,
      host: bound?.address ?? host ?? '::',
      // Open keep-alive connections (a scraper's) would hold close() until they time out.
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }

  #add(endpoint: 'healthz' | 'readyz', name: string, check: Check, options: CheckOptions): this {
    this.#claim(name, this.#checks[endpoint].has(name) || (endpoint === 'readyz' && this.#info.has(name)));
    const timed = () => this.#timed(name, check, options.timeoutMs ?? API_PROBE_TIMEOUT_MS);
    const reuseMs = options.reuseMs ?? 0;
    this.#checks[endpoint].set(name, { name, run: reuseMs > 0 ? this.#reused(timed, reuseMs) : timed });
    return this;
  }

  #claim(name: string, taken: boolean): void {
    if (!NAME.test(name)) throw new Error(`ops: the name ${JSON.stringify(name)} is not [a-z0-9-]+`);
    if (taken) throw new Error(`ops: ${name} is registered twice`);
  }

  async #timed(name: string, check: Check, timeoutMs: number): Promise<Result> {
    const done = new AbortController();
    const timedOut = new AbortController();
    const timeout = this.#clock.sleep(timeoutMs, done.signal).then(
      async () => {
        timedOut.abort(new Error(`no answer in ${timeoutMs} ms`));
        // A check that listens to its signal settles with a reason of its own (`not connected`): give it
        // a turn to be the one shown.
        await new Promise((resolve) => setImmediate(resolve));
        throw timedOut.signal.reason;
      },
      () => undefined,
    );
    try {
      await Promise.race([check(timedOut.signal), timeout]);
      return { name, failure: undefined };
    } catch (err) {
      return { name, failure: reasonOf(err) };
    } finally {
      done.abort();
    }
  }

  /** One run at a time; its result reused for `reuseMs` after it settled. */
  #reused(run: () => Promise<Result>, reuseMs: number): () => Promise<Result> {
    let last: { result: Promise<Result>; settledAt: number | undefined } | undefined;
    return () => {
      const now = this.#clock.elapsed();
      if (last !== undefined && (last.settledAt === undefined || now - last.settledAt < reuseMs)) {
        return last.result;
      }
      const entry: typeof last = { result: run(), settledAt: undefined };
      void entry.result.then(() => (entry.settledAt = this.#clock.elapsed()));
      last = entry;
      return entry.result;
    };
  }
}

/** One check's answer: 200 `ok`, 503 with its reason, 404 for a name not registered. */
async function one(endpoint: string, check: NamedCheck | undefined, name: string): Promise<OpsAnswer> {
  if (check === undefined) return { status: 404, type: TEXT, body: `no ${endpoint} check named ${name}\n` };
  const r = await check.run();
  return r.failure === undefined
    ? { status: 200, type: TEXT, body: 'ok\n' }
    : { status: 503, type: TEXT, body: `${r.failure}\n` };
}

/**
 * The endpoint's body. Plain: `ok` or `failed: <names>`, then `name: ok` or `name: <reason>` per check in
 * the order registered, then the info lines. Verbose: Kubernetes' `[+]name ok` / `[-]name failed: <reason>`
 * and `<endpoint> check passed|failed`.
 */
function report(endpoint: string, results: Result[], info: string[], verbose: boolean): OpsAnswer {
  const failed = results.filter((r) => r.failure !== undefined).map((r) => r.name);
  const lines = verbose
    ? [
        ...results.map((r) =>
          r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.failure}`,
        ),
        ...info,
        `${endpoint} check ${failed.length === 0 ? 'passed' : 'failed'}`,
      ]
    : [
        failed.length === 0 ? 'ok' : `failed: ${failed.join(', ')}`,
        ...results.map((r) => `${r.name}: ${r.failure ?? 'ok'}`),
        ...info,
      ];
  return { status: failed.length === 0 ? 200 : 503, type: TEXT, body: `${lines.join('\n')}\n` };
}

function send(res: http.ServerResponse, a: OpsAnswer): void {
  res.statusCode = a.status;
  res.setHeader('Content-Type', a.type);
  res.end(a.body);
}

function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.slice(0, 300);
}
