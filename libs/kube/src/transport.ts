// The one door to the Kubernetes API. Every request: waits for the rate limiter, carries the KubeConfig's
// auth (token, client cert, exec plugins, CA: applied by client-node itself), is counted by verb and
// response code, and fails with a KubeApiError carrying the Status code, reason and message. A 429 pauses
// the limiter for its Retry-After (so every caller backs off) and is retried a few times.

import type { KubeConfig } from '@kubernetes/client-node';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { CredentialCache, putHeader } from './credentials.ts';
import { requestDeadline } from './deadline.ts';
import { defaultReason, KubeApiError } from './errors.ts';
import {
  kubeConfigGeneration,
  kubeConfigWorked,
  reloadKubeConfigIfChanged,
  tlsVerificationCode,
} from './kubeconfig-reload.ts';
import { LineSplitter } from './line-splitter.ts';
import {
  decodeWatchFrame,
  FrameSplitter,
  isProtobufStream,
  PROTOBUF_WATCH_ACCEPT,
  ProtobufDecodeError,
  protobufStatus,
} from './protobuf-watch.ts';
import { pacedReads, WATCH_PACING } from './paced-reads.ts';
import { RateLimiter } from './rate-limiter.ts';
import { apiAnswered, apiFailed } from './reachability.ts';
import type { Status, WatchEvent } from './types.ts';
import { textWithoutManagedFields } from './watch-line.ts';
import { sendForWholeAnswer, type WholeAnswer } from './whole-answer.ts';

/** An answer as undici.request gives it: the body a stream, read once. */
type Answer = Dispatcher.ResponseData;

/** A request made ready to send (#prepare). */
interface Prepared {
  url: URL;
  /** `url.origin`, read once: the answer's accounting and the whole-answer path both need it. */
  origin: string;
  headers: Record<string, string>;
  body: string | undefined;
  dispatcher: Dispatcher;
  /** Time it waited in the rate limiter, ms. */
  waitMs: number;
  /** When it was sent (the limiter's clock). */
  started: number;
}

/**
 * A watch's request; `dropManagedFields` cuts metadata.managedFields from each line before it is parsed;
 * `readPauseMs` above 0 reads the stream in paced turns (paced-reads.ts): after a turn's events were handed on,
 * what arrives is left in the kernel up to this long (less when the watch is busy) and comes out in one turn,
 * within the bounds of paced-reads.ts's WATCH_PACING.
 */
export type StreamOptions = Omit<RequestOptions, 'method' | 'verb' | 'body'> & {
  dropManagedFields?: boolean;
  readPauseMs?: number;
  /**
   * Ask for the watch in protobuf (JSON still accepted: the API has none for custom resources) and read it
   * so when it comes so: its objects then hold what protobuf-objects.ts decodes (a pod watcher's fields).
   */
  protobuf?: boolean;
  /** Told when a protobuf stream did not decode, before the watch fails with that error. */
  onProtobufFailed?: (err: ProtobufDecodeError) => void;
};

/** Audit-style verbs (what the API server's audit log and apiserver_request_total call them). */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

export interface RequestRecord {
  verb: Verb;
  /** `pods`, `podsets.podset.io`, `pods/status`, … */
  resource: string;
  /** HTTP status; 0 when no response arrived (network error, abort, timeout). */
  code: number;
  durationMs: number;
  /** Time this request waited in the rate limiter (including 429 pauses), ms. */
  waitMs: number;
}

export interface KubeClientOptions {
  kubeConfig: KubeConfig;
  /** Client-side limit; default 50 QPS, burst 100. Ignored when `limiter` is given. */
  qps?: number;
  burst?: number;
  /** Share one limiter between several clients, or inject one with a test clock. */
  limiter?: RateLimiter;
  userAgent?: string;
  /** Per-request timeout for non-watch requests, ms. Default 30 s. */
  timeoutMs?: number;
  /** How many times a 429 is retried after its Retry-After pause. Default 5. */
  maxRetries429?: number;
  /** Called once per HTTP exchange (retries count separately): hook metrics here. */
  onRequest?: (record: RequestRecord) => void;
  /** The connection pool, instead of one built for the kubeconfig (tests: a pool with short timeouts). */
  dispatcher?: Dispatcher;
}

export interface RequestOptions {
  verb: Verb;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** For counting; derived from `path` when omitted. */
  resource?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** The Accept header; application/json when omitted. */
  accept?: string;
  signal?: AbortSignal;
}

export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly limiter: RateLimiter;
  #server: string;
  /** The kubeconfig's reload generation the server and the pool were taken from. */
  #generation: number;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #maxRetries429: number;
  readonly #onRequest: ((record: RequestRecord) => void) | undefined;
  readonly #counts = new Map<string, number>();
  /**
   * The auth headers and one connection pool per kubeconfig content (credentials.ts): client-node builds a
   * new undici Agent on every applySecurityAuthentication call, so calling it per request built an Agent
   * per request (and, before the pool was kept, a TCP + TLS handshake per request too).
   */
  readonly #credentials: CredentialCache;

  constructor(options: KubeClientOptions) {
    this.kubeConfig = options.kubeConfig;
    const cluster = options.kubeConfig.getCurrentCluster();
    if (cluster === null) throw new Error('kubeconfig has no current cluster (check current-context)');
    this.#server = cluster.server.replace(/\/+$/, '');
    this.#generation = kubeConfigGeneration(options.kubeConfig);
    this.limiter =
      options.limiter ?? new RateLimiter({ qps: options.qps ?? 50, burst: options.burst ?? 100 });
    this.#userAgent = options.userAgent ?? 'podset-operator';
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetries429 = options.maxRetries429 ?? 5;
    this.#onRequest = options.onRequest;
    this.#credentials = new CredentialCache(options.kubeConfig, options.dispatcher);
  }

  /** How many times client-node's full set-up (headers and a new Agent) ran: once per kubeconfig content. */
  get credentialSetups(): number {
    return this.#credentials.setups;
  }

  /** The API server's URL (from the kubeconfig; follows a reload of its file). */
  get server(): string {
    return this.#server;
  }

  /** Requests so far by verb and code, e.g. `{ verb: 'create', code: 201, count: 3 }`. */
  requestCounts(): { verb: Verb; code: number; count: number }[] {
    return [...this.#counts].map(([key, count]) => {
      const [verb, code] = key.split(' ');
      return { verb: verb as Verb, code: Number(code), count };
    });
  }

  /** Total requests (optionally of one verb). */
  requestTotal(verb?: Verb): number {
    let n = 0;
    for (const c of this.requestCounts()) if (verb === undefined || c.verb === verb) n += c.count;
    return n;
  }

  /** One JSON request/response; throws KubeApiError on a non-2xx answer. */
  async request<T>(opts: RequestOptions): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const deadline = requestDeadline(opts.signal, this.#timeoutMs);
      let answer: WholeAnswer;
      try {
        answer = await this.#exchangeWhole(opts, deadline.signal);
      } finally {
        deadline.clear();
      }
      const { statusCode, text } = answer;
      if (statusCode >= 200 && statusCode < 300) {
        return (
          text === ''
            ? undefined
            : parseJson(text, () => `the ${statusCode} answer to ${opts.method} ${opts.path}`)
        ) as T;
      }
      const error = this.#error(opts, statusCode, answer.headers, text);
      if (error.code === 429 && attempt < this.#maxRetries429) continue;
      throw error;
    }
  }

  /**
   * A watch: yields each event as it arrives; ends when the server closes the stream. Abort `signal` to
   * stop. Non-200 answers throw KubeApiError; in-stream errors (e.g. 410 Expired) arrive as ERROR events
   * whose object is a Status. No inactivity timeout here (undici's 300 s body timeout is off for streams):
   * a quiet watch gets nothing from a real server for as long as its resource is unchanged, so the caller
   * owns the deadline (ask `timeoutSeconds`, give up some time past it). A dead peer is found by the
   * socket's TCP keepalive (credentials.ts).
   */
  async *stream<T>(opts: StreamOptions): AsyncGenerator<WatchEvent<T>> {
    for await (const batch of this.streamBatches<T>(opts)) yield* batch;
  }

  /**
   * The same watch as `stream`, its events in arrays: those of one read from the socket together, so a
   * busy watch costs its consumer one await per read rather than one per event. Never an empty array.
   */
  async *streamBatches<T>(opts: StreamOptions): AsyncGenerator<WatchEvent<T>[]> {
    const {
      dropManagedFields = false,
      readPauseMs = 0,
      protobuf = false,
      onProtobufFailed: _,
      ...rest
    } = opts;
    if (!Number.isFinite(readPauseMs) || readPauseMs < 0) {
      throw new RangeError(`readPauseMs must be a finite number ≥ 0, not ${readPauseMs}`);
    }
    const paced = readPauseMs > 0;
    const reqOpts: RequestOptions = {
      ...rest,
      verb: 'watch',
      method: 'GET',
      query: { ...opts.query, watch: true },
      ...(protobuf ? { accept: PROTOBUF_WATCH_ACCEPT } : {}),
    };
    let response: Answer;
    for (let attempt = 0; ; attempt++) {
      // Paced: a one-byte body buffer, so undici's parser stops after each chunk and leaves the socket unread.
      response = await this.#exchange(
        reqOpts,
        opts.signal,
        { bodyTimeout: 0, ...(paced ? { highWaterMark: 1 } : {}) },
        paced,
      );
      if (response.statusCode === 200) break;
      // Asked for protobuf, the API answers an error's Status in protobuf too.
      const error = isProtobufStream(response.headers['content-type'])
        ? this.#error(
            reqOpts,
            response.statusCode,
            response.headers,
            '',
            protobufStatus(await response.body.bytes()),
          )
        : this.#error(reqOpts, response.statusCode, response.headers, await response.body.text());
      if (error.code === 429 && attempt < this.#maxRetries429) continue;
      throw error;
    }
    const body = response.body;
    const reads: AsyncIterable<Buffer> = paced
      ? pacedReads(body, { pauseMs: readPauseMs, ...WATCH_PACING }, this.limiter.clock, opts.signal)
      : (body as AsyncIterable<Buffer>);
    // One loop for both encodings: a layer of generator per read would cost a watch read in turns of one
    // event (a kubelet's pace) more than its decoding saves.
    const events =
      protobuf && isProtobufStream(response.headers['content-type'])
        ? frameEvents<T>(opts.path)
        : lineEvents<T>(dropManagedFields, () => `a line of the watch of ${opts.path}`);
    try {
      for await (const chunk of reads) {
        const read = events.push(chunk);
        if (read.parsed.length > 0) yield read.parsed;
        if (read.failed !== undefined) throw read.failed.error;
      }
      const read = events.end();
      if (read.parsed.length > 0) yield read.parsed;
      if (read.failed !== undefined) throw read.failed.error;
    } catch (err) {
      if (opts.signal?.aborted === true) return;
      if (err instanceof ProtobufDecodeError) opts.onProtobufFailed?.(err);
      throw err;
    } finally {
      body.destroy();
    }
  }

  /** Closes the pooled connections (idle keep-alive sockets would otherwise hold the process open). */
  async close(): Promise<void> {
    await this.#credentials.close();
  }

  /**
   * After the kubeconfig file was reloaded (kubeconfig-reload.ts): its server, and a new pool, since the
   * pooled connections trust the old CA. In-flight requests finish on the old pool, which then closes.
   */
  #followReload(): void {
    const generation = kubeConfigGeneration(this.kubeConfig);
    if (generation === this.#generation) return;
    this.#generation = generation;
    const cluster = this.kubeConfig.getCurrentCluster();
    if (cluster !== null) this.#server = cluster.server.replace(/\/+$/, '');
    this.#credentials.drop();
  }

  /** A request's URL, headers and body, its pool, and its turn from the rate limiter. */
  async #prepare(opts: RequestOptions, signal: AbortSignal | undefined, paced: boolean): Promise<Prepared> {
    this.#followReload();
    const url = new URL(this.#server + opts.path);
    for (const [key, value] of Object.entries(opts.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const credentials = await this.#credentials.current();
    const auth = credentials.headers;
    const dispatcher = paced ? credentials.pacedDispatcher : credentials.dispatcher;
    const headers: Record<string, string> = {
      Accept: opts.accept ?? 'application/json',
      'User-Agent': this.#userAgent,
    };
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json';
    // The auth headers last and case-blind, as client-node's setHeaderParam put them over the request's.
    for (const [key, value] of Object.entries(auth)) putHeader(headers, key, value);

    const waitMs = await this.limiter.acquire(signal);
    return { url, origin: url.origin, headers, body, dispatcher, waitMs, started: this.limiter.clock.now() };
  }

  /** A request whose answer is read whole (whole-answer.ts): every call but a watch. */
  async #exchangeWhole(opts: RequestOptions, signal: AbortSignal): Promise<WholeAnswer> {
    const sent = await this.#prepare(opts, signal, false);
    let answered = false;
    try {
      return await sendForWholeAnswer(
        sent.dispatcher,
        {
          origin: sent.origin,
          path: sent.url.pathname + sent.url.search,
          method: opts.method,
          headers: sent.headers,
          ...(sent.body !== undefined ? { body: sent.body } : {}),
        },
        signal,
        (code) => {
          answered = true;
          this.#answered(opts, sent, code);
        },
      );
    } catch (err) {
      // Failed while its body arrived: the answer was counted; the error is the body's, as it is.
      if (answered) throw err;
      throw this.#failed(opts, sent, err);
    }
  }

  /** A watch's request: its body a stream, read as it arrives. */
  async #exchange(
    opts: RequestOptions,
    signal: AbortSignal | undefined,
    bodyOptions: { bodyTimeout?: number; highWaterMark?: number } = {},
    /** A paced watch: on the pool whose sockets buffer one byte (credentials.ts). */
    paced = false,
  ): Promise<Answer> {
    const sent = await this.#prepare(opts, signal, paced);
    let response: Answer;
    try {
      response = await undiciRequest(sent.url, {
        method: opts.method,
        headers: sent.headers,
        ...(sent.body !== undefined ? { body: sent.body } : {}),
        dispatcher: sent.dispatcher,
        ...bodyOptions,
        ...(signal !== undefined ? { signal } : {}),
      });
    } catch (err) {
      throw this.#failed(opts, sent, err);
    }
    this.#answered(opts, sent, response.statusCode);
    return response;
  }

  /** An answer's headers arrived: counted, and what its code says about the kubeconfig and the API acted on. */
  #answered(opts: RequestOptions, sent: Prepared, code: number): void {
    // A 401 may be a token replaced in the kubeconfig file: look at the file (with a backoff).
    if (code === 401)
      reloadKubeConfigIfChanged(this.kubeConfig, '401 Unauthorized', this.limiter.clock.now());
    else kubeConfigWorked(this.kubeConfig);
    apiAnswered(this.kubeConfig, sent.origin);
    this.#record(opts, sent, code);
  }

  /** No answer came: counted with code 0, and the error named with the request (networkError). */
  #failed(opts: RequestOptions, sent: Prepared, err: unknown): unknown {
    try {
      // Not reached at start: said once, with the likely cause (reachability.ts).
      apiFailed(this.kubeConfig, err, sent.origin);
      // The server's certificate no longer verifies: its CA may have been replaced in the kubeconfig file.
      const tls = tlsVerificationCode(err);
      if (tls !== undefined) {
        reloadKubeConfigIfChanged(
          this.kubeConfig,
          `TLS verification failed (${tls})`,
          this.limiter.clock.now(),
        );
      }
      return networkError(err, opts.method, sent.url);
    } finally {
      this.#record(opts, sent, 0);
    }
  }

  #record(opts: RequestOptions, sent: Prepared, code: number): void {
    const key = `${opts.verb} ${code}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#onRequest?.({
      verb: opts.verb,
      resource: opts.resource ?? resourceOfPath(opts.path),
      code,
      durationMs: this.limiter.clock.now() - sent.started,
      waitMs: sent.waitMs,
    });
  }

  #error(
    opts: RequestOptions,
    code: number,
    headers: Answer['headers'],
    text: string,
    decoded?: Status,
  ): KubeApiError {
    let status: Status | undefined = decoded;
    if (status === undefined) {
      try {
        const parsed = JSON.parse(text) as Status;
        if (parsed !== null && typeof parsed === 'object' && parsed.kind === 'Status') status = parsed;
      } catch {
        // not JSON: keep the text as the message
      }
    }
    const headerRetry = Number(headers['retry-after']);
    const retryAfterSeconds = Number.isFinite(headerRetry) ? headerRetry : status?.details?.retryAfterSeconds;
    if (code === 429) this.limiter.pause((retryAfterSeconds ?? 1) * 1000);
    return new KubeApiError({
      code,
      reason: status?.reason ?? defaultReason(code),
      message: status?.message ?? (text.slice(0, 500) || defaultReason(code)),
      ...(status !== undefined ? { status } : {}),
      verb: opts.verb,
      path: opts.path,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    });
  }
}

/**
 * A failure without an answer, named with the request: "connect ECONNREFUSED 127.0.0.1:6443" alone does
 * not say which call failed ("lease request failed: TypeError: fetch failed" said nothing at all; found by
 * the bad-input catalog). undici.request rejects with the socket's error or its own UND_ERR_* one; an
 * abort (the caller's signal or the timeout) passes through as it is.
 */
function networkError(err: unknown, method: string, url: URL): unknown {
  if (!(err instanceof Error) || err.name === 'AbortError' || err.name === 'TimeoutError') return err;
  if (typeof (err as { code?: unknown }).code !== 'string') return err;
  return new Error(`${method} ${url.origin}${url.pathname}: ${err.message}`, { cause: err });
}

/**
 * JSON.parse with the request named in the error: a bare "Unterminated string in JSON at position 195"
 * from deep in a reconcile doesn't say which answer was broken (found by the bad-input catalog).
 */
function parseJson(text: string, what: () => string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const start = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new Error(`invalid JSON in ${what()}: ${why} (starts ${JSON.stringify(start)})`, { cause: err });
  }
}

/** A read's events, and the error of the first line or frame that did not decode (those before it kept). */
interface Read<T> {
  parsed: WatchEvent<T>[];
  failed?: { error: unknown };
}

/** A watch body's decoder: what each chunk completes, and what is left when the body ends. */
interface StreamEvents<T> {
  push(chunk: Buffer): Read<T>;
  end(): Read<T>;
}

function lineEvents<T>(dropManagedFields: boolean, what: () => string): StreamEvents<T> {
  const splitter = new LineSplitter();
  return {
    push: (chunk) => parseLines<T>(splitter.push(chunk), dropManagedFields, what),
    end: () => parseLines<T>(splitter.end(), dropManagedFields, what),
  };
}

/** A protobuf watch's frames as events; an error names the watch. */
function frameEvents<T>(path: string): StreamEvents<T> {
  const splitter = new FrameSplitter();
  const failed = (err: unknown) => ({
    error: new ProtobufDecodeError(
      `the protobuf watch of ${path}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    ),
  });
  return {
    push(chunk) {
      const parsed: WatchEvent<T>[] = [];
      let frames: Buffer[];
      try {
        frames = splitter.push(chunk);
      } catch (err) {
        return { parsed, failed: failed(err) };
      }
      for (const frame of frames) {
        try {
          parsed.push(decodeWatchFrame<T>(frame));
        } catch (err) {
          return { parsed, failed: failed(err) };
        }
      }
      return { parsed };
    },
    end: () =>
      splitter.partial
        ? { parsed: [], failed: failed(new Error('the stream ended inside a frame')) }
        : { parsed: [] },
  };
}

/**
 * A read's lines as events, blank ones skipped. A line that is not JSON stops there: the events before it
 * are still handed on (as one at a time did), then its error is thrown.
 */
function parseLines<T>(
  lines: readonly Buffer[],
  dropManagedFields: boolean,
  what: () => string,
): { parsed: WatchEvent<T>[]; failed?: { error: unknown } } {
  const parsed: WatchEvent<T>[] = [];
  for (const line of lines) {
    if (isBlank(line)) continue;
    const text = dropManagedFields ? textWithoutManagedFields(line) : line.toString('utf8');
    try {
      parsed.push(parseJson(text, what) as WatchEvent<T>);
    } catch (error) {
      return { parsed, failed: { error } };
    }
  }
  return { parsed };
}

/** Whether a line holds nothing but JSON's whitespace (space, tab, CR). */
function isBlank(line: Buffer): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** `/api/v1/namespaces/x/pods/y/status` → `pods/status`; `/apis/podset.io/v1/...podsets/z` → `podsets.podset.io`. */
export function resourceOfPath(path: string): string {
  const parts = path
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '');
  let group = '';
  let rest: string[];
  if (parts[0] === 'api') rest = parts.slice(2);
  else if (parts[0] === 'apis') {
    group = parts[1] ?? '';
    rest = parts.slice(3);
  } else return path;
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  const plural = rest[0] ?? '';
  const sub = rest[2];
  const name = group === '' ? plural : `${plural}.${group}`;
  return sub === undefined ? name : `${name}/${sub}`;
}
