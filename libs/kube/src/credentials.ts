// What a request carries to prove who it is, and the connection pool it goes through: taken from the
// KubeConfig through client-node, but not rebuilt on every request. client-node's applySecurityAuthentication
// builds a new undici Agent (and copies the CA, certificate and key into new Buffers) on each call; only
// the first Agent was ever used, so calling it per request cost a worker ~3 % of its CPU for objects
// thrown away.
//
// - The pool is built once per kubeconfig content (a reload or loadFromOptions gives new arrays, so a new
//   pool: a new CA must not be trusted on old connections, nor an old one kept).
// - The headers are kept for that same content only when nothing in them can change without the content
//   changing: a user with a token, a client certificate, basic auth or impersonation, and no exec plugin
//   or auth provider. An exec plugin or a token file (in-cluster: the service account token, rotated on
//   disk) is asked on every request, as client-node does, through its public applyToHTTPSOptions, which
//   builds no Agent.

import type { KubeConfig } from '@kubernetes/client-node';
import type { OutgoingHttpHeaders } from 'node:http';
import type { AgentOptions as HttpsAgentOptions, RequestOptions as HttpsRequestOptions } from 'node:https';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { Agent, type buildConnector, type Dispatcher } from 'undici';
import { clientNode } from './client-node.ts';

/** TCP keepalive starts probing a connection idle this long (client-go's dialer and client-node use 30 s). */
const KEEPALIVE_IDLE_MS = 30_000;

/**
 * How long the pool keeps an idle connection when the server says nothing (#setUp): under a
 * kube-apiserver's 90 s idle timeout and the 60 s of common load balancers.
 */
export const IDLE_CONNECTION_MS = 30_000;

export interface Credentials {
  /** The auth headers (Authorization, Impersonate-User, an exec plugin's), without the request's own. */
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  /**
   * The pool of paced watches (paced-reads.ts): the same connections, except that each socket buffers one
   * byte, so it stops reading from the kernel after every read and a paced watch's pause leaves what arrives
   * there. Apart, since that would slow every other answer. The same pool as `dispatcher` when that one is
   * a proxy's or was given.
   */
  pacedDispatcher: Dispatcher;
}

/** The buffer of a paced watch's socket (its readable highWaterMark): it stops reading after each read. */
const PACED_SOCKET_BUFFER_BYTES = 1;

/** A content's pools, as Credentials hands them out. */
type Pools = Pick<Credentials, 'dispatcher' | 'pacedDispatcher'>;

/** Closes each of `pools` once (the paced one may be the other itself). */
async function closePools(pools: Pools | undefined): Promise<void> {
  if (pools === undefined) return;
  await Promise.all([...new Set([pools.dispatcher, pools.pacedDispatcher])].map((p) => p.close()));
}

/** The parts of a KubeConfig whose replacement means new credentials and a new pool. */
interface Content {
  clusters: unknown;
  contexts: unknown;
  users: unknown;
  currentContext: string;
}

function contentOf(kc: KubeConfig): Content {
  return { clusters: kc.clusters, contexts: kc.contexts, users: kc.users, currentContext: kc.currentContext };
}

function sameContent(a: Content, b: Content): boolean {
  return (
    a.clusters === b.clusters &&
    a.contexts === b.contexts &&
    a.users === b.users &&
    a.currentContext === b.currentContext
  );
}

/**
 * True when the current user's headers can only change with the kubeconfig's content: no exec plugin, no
 * auth provider (a token file is one), and no authenticator added with addAuthenticator (it may match any
 * user; client-node keeps that list private, so it is read as a plain field).
 */
export function fixedHeaders(kc: KubeConfig): boolean {
  const added = (kc as unknown as { custom_authenticators?: unknown }).custom_authenticators;
  if (!Array.isArray(added) || added.length > 0) return false;
  const user = kc.getCurrentUser();
  return user === null || (user.exec == null && user.authProvider == null);
}

/**
 * Per KubeConfig content: its pool, built once, and its headers when they are fixed. `current()` answers
 * each request; `close()` ends the pool (and a pool dropped for new content closes once its requests end).
 */
export class CredentialCache {
  readonly #kc: KubeConfig;
  #content: Content | undefined;
  /** This content's pools: the paced one is the other itself when it has no twin (a proxy's, a given one). */
  #pools: Pools | undefined;
  /**
   * This content's headers when fixedHeaders said they cannot change within it, or 'per-request' when
   * client-node is asked again each time (undefined: not set up yet).
   */
  #headers: Record<string, string> | 'per-request' | undefined;
  #pending: { content: Content; setUp: Promise<Credentials> } | undefined;
  /** How many times the headers and TLS material were taken whole: once per content. */
  setups = 0;

  constructor(kc: KubeConfig, dispatcher?: Dispatcher) {
    this.#kc = kc;
    if (dispatcher !== undefined) {
      this.#pools = { dispatcher, pacedDispatcher: dispatcher };
      this.#content = contentOf(kc);
    }
  }

  async current(): Promise<Credentials> {
    const content = contentOf(this.#kc);
    const pools = this.#pools;
    if (pools !== undefined && this.#content !== undefined && sameContent(this.#content, content)) {
      if (this.#headers === 'per-request') return { headers: await this.#headersNow(), ...pools };
      if (this.#headers !== undefined) return { headers: this.#headers, ...pools };
    }
    // The requests of a first burst wait for one set-up (one pool), not one each.
    if (this.#pending === undefined || !sameContent(this.#pending.content, content)) {
      const setUp = this.#setUp(content).finally(() => {
        if (this.#pending?.setUp === setUp) this.#pending = undefined;
      });
      this.#pending = { content, setUp };
    }
    return this.#pending.setUp;
  }

  /** Drops the pool (new content, or a reload the caller saw): the next request builds another. */
  drop(): void {
    const old = this.#pools;
    this.#pools = undefined;
    this.#content = undefined;
    this.#headers = undefined;
    this.#pending = undefined;
    closePools(old).catch(() => undefined);
  }

  async close(): Promise<void> {
    const pools = this.#pools;
    this.#pools = undefined;
    this.#content = undefined;
    this.#pending = undefined;
    await closePools(pools);
  }

  /**
   * Once per content: the headers and TLS material as client-node takes them from the kubeconfig, and
   * the pool built from client-node's own mapping of them (createDispatcherOptions). Our Agent, not the
   * one applySecurityAuthentication builds, for one option it does not set: how long an idle connection
   * is kept. undici keeps one 4 s unless the server's Keep-Alive header says longer; kube-sim (Node)
   * says 65 s, but a kube-apiserver (Go net/http, idle timeout 90 s) sends no such header, so on a real
   * cluster every connection idle 4 s between bursts was closed and its TLS handshake paid again. A
   * proxy's or SOCKS dispatcher stays client-node's. TCP keepalive after 30 s idle as client-node (and
   * client-go) set it: a watch whose peer vanished fails within about 40 s.
   */
  async #setUp(content: Content): Promise<Credentials> {
    const opts: HttpsRequestOptions = {};
    await this.#kc.applyToHTTPSOptions(opts);
    this.setups++;
    const headers = headersOf(opts);
    let pools = this.#pools;
    if (this.#content === undefined || !sameContent(this.#content, content) || pools === undefined) {
      const old = pools;
      pools = this.#pools = await this.#build(opts);
      this.#content = content;
      closePools(old).catch(() => undefined);
    }
    this.#headers = fixedHeaders(this.#kc) ? headers : 'per-request';
    return { headers, ...pools };
  }

  async #build(tls: HttpsRequestOptions): Promise<Pools> {
    const agentOptions: HttpsAgentOptions = {};
    if (tls.ca !== undefined) agentOptions.ca = tls.ca;
    if (tls.cert !== undefined) agentOptions.cert = tls.cert;
    if (tls.key !== undefined) agentOptions.key = tls.key;
    if (tls.rejectUnauthorized !== undefined) agentOptions.rejectUnauthorized = tls.rejectUnauthorized;
    if (tls.servername !== undefined) agentOptions.servername = tls.servername;
    const options = this.#kc.createDispatcherOptions(this.#kc.getCurrentCluster(), agentOptions);
    const keepAlive = { keepAlive: true, keepAliveInitialDelay: KEEPALIVE_IDLE_MS };
    /** The pool for `connect`, and its twin whose sockets buffer one byte. */
    const pair = (connect: object) => {
      const agent = (extra: object) =>
        new Agent({ connect: { ...connect, ...extra }, keepAliveTimeout: IDLE_CONNECTION_MS });
      return { dispatcher: agent({}), pacedDispatcher: agent({ highWaterMark: PACED_SOCKET_BUFFER_BYTES }) };
    };
    if (options.type === 'agent') {
      // One TLS context (CA, client certificate) for the pool: tls.connect would build one per
      // connection from the same CA and key (~1 ms each, a worker's first burst opens ~40).
      const { ca, cert, key, ...connect } = options.connect as buildConnector.BuildOptions &
        SecureContextOptions;
      const secureContext = createSecureContext({
        ...(ca !== undefined ? { ca } : {}),
        ...(cert !== undefined ? { cert } : {}),
        ...(key !== undefined ? { key } : {}),
      });
      return pair({ ...connect, secureContext, ...keepAlive });
    }
    if (options.type === 'none') return pair(keepAlive);
    const { RequestContext, HttpMethod } = clientNode();
    const ctx = new RequestContext(
      this.#kc.getCurrentCluster()?.server ?? 'http://localhost',
      HttpMethod.GET,
    );
    await this.#kc.applySecurityAuthentication(ctx);
    // A proxy's pool has no one-byte twin: paced watches use it as it is.
    const dispatcher =
      ctx.getDispatcher() ?? new Agent({ connect: keepAlive, keepAliveTimeout: IDLE_CONNECTION_MS });
    return { dispatcher, pacedDispatcher: dispatcher };
  }

  /**
   * The headers as client-node makes them now (an exec plugin's cached credential until it expires, a
   * token file read again when client-node's cache of it is stale), without an Agent: applyToHTTPSOptions
   * reuses the one https.Agent it caches per cluster and user.
   */
  async #headersNow(): Promise<Record<string, string>> {
    const opts: HttpsRequestOptions = {};
    await this.#kc.applyToHTTPSOptions(opts);
    return headersOf(opts);
  }
}

/** applyToHTTPSOptions's result as request headers: basic auth first, so a token wins, as client-node does. */
function headersOf(opts: HttpsRequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (typeof opts.auth === 'string') {
    headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  }
  const given: OutgoingHttpHeaders = (opts.headers as OutgoingHttpHeaders | undefined) ?? {};
  for (const [key, value] of Object.entries(given)) {
    if (value !== undefined) putHeader(headers, key, String(value));
  }
  return headers;
}

/** Sets a header over any of the same name in another case (HTTP header names are case-blind). */
export function putHeader(headers: Record<string, string>, key: string, value: string): void {
  const lower = key.toLowerCase();
  for (const k of Object.keys(headers)) if (k.toLowerCase() === lower) delete headers[k];
  headers[key] = value;
}
