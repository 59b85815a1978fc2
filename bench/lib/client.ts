// The bench's own client for the cluster: keep-alive HTTPS (or plain HTTP) requests as one identity, and a
// watch that reopens itself from the last resourceVersion it saw.
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent, type AgentOptions } from 'node:https';
import { loadKubeConfig } from '@podset/kube';

export interface Reply {
  status: number;
  body: Buffer;
}

/** TLS settings of a connection: the CA, a client certificate, whether to verify the server. */
export type TlsOptions = Pick<AgentOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;

/** A keep-alive client for the cluster as one identity (https like the apps, or plain http for monitoring). */
export class Client {
  readonly #agent: HttpAgent | HttpsAgent;
  readonly #https: boolean;
  readonly #url: URL;
  readonly #auth: Record<string, string>;
  readonly #tls: TlsOptions;

  /** `token`: a bearer token, or the headers that authenticate (none for a client certificate). */
  constructor(
    url: string,
    token: string | Record<string, string>,
    opts: { https: boolean; ca?: string; tls?: TlsOptions; maxSockets?: number },
  ) {
    this.#url = new URL(url);
    this.#auth = typeof token === 'string' ? { authorization: `Bearer ${token}` } : token;
    this.#https = opts.https;
    this.#tls = { ...opts.tls, ...(opts.ca !== undefined ? { ca: opts.ca } : {}) };
    const agentOpts = { keepAlive: true, maxSockets: opts.maxSockets ?? 64 };
    this.#agent = opts.https ? new HttpsAgent({ ...agentOpts, ...this.#tls }) : new HttpAgent(agentOpts);
  }

  /**
   * A client with the credentials of a kubeconfig's current context (token, client certificate, CA; an exec
   * plugin's token as it is when the client is made), as kubectl would connect.
   */
  static async fromKubeconfig(file: string, maxSockets = 64): Promise<Client> {
    const kc = loadKubeConfig({ kubeconfig: file });
    const server = kc.getCurrentCluster()?.server ?? '';
    const opts: { headers?: Record<string, unknown> } & TlsOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = String(v);
    const tls: TlsOptions = {};
    for (const key of ['ca', 'cert', 'key', 'rejectUnauthorized', 'servername'] as const)
      if (opts[key] !== undefined) Object.assign(tls, { [key]: opts[key] });
    return new Client(server, headers, { https: server.startsWith('https:'), tls, maxSockets });
  }

  call(method: string, p: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = {
      ...this.#auth,
      accept: 'application/json',
    };
    if (payload) {
      headers['content-type'] = contentType;
      headers['content-length'] = payload.length;
    }
    const req = this.#https ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const r = req(
        {
          agent: this.#agent,
          host: this.#url.hostname,
          port: this.#url.port,
          method,
          path: p,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(payload);
    });
  }

  async json<T = Record<string, unknown>>(
    method: string,
    p: string,
    body?: unknown,
    ct?: string,
  ): Promise<T> {
    const r = await this.call(method, p, body, ct);
    if (r.status < 200 || r.status > 299)
      throw new Error(`${method} ${p}: HTTP ${r.status} ${r.body.toString().slice(0, 300)}`);
    return JSON.parse(r.body.toString()) as T;
  }

  /**
   * Watches `p` from `resourceVersion`; calls onEvent per event. Returns a stop function. The watch is
   * reopened (from the last RV seen) if the server ends it.
   */
  watch(
    p: string,
    resourceVersion: string,
    onEvent: (type: string, obj: KubeObj) => void,
  ): { stop: () => void } {
    let stopped = false;
    let rv = resourceVersion;
    let current: ReturnType<typeof httpRequest> | undefined;
    const open = (): void => {
      if (stopped) return;
      const req = (this.#https ? httpsRequest : httpRequest)(
        {
          agent: false,
          ...(this.#https ? this.#tls : {}),
          host: this.#url.hostname,
          port: this.#url.port,
          path: `${p}${p.includes('?') ? '&' : '?'}watch=1&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=3600`,
          headers: { ...this.#auth, accept: 'application/json' },
        },
        (res) => {
          let partial = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const text = partial + chunk;
            const lines = text.split('\n');
            partial = lines.pop() ?? '';
            for (const line of lines) {
              if (line === '') continue;
              const ev = JSON.parse(line) as { type: string; object: KubeObj };
              const evRv = ev.object.metadata?.resourceVersion;
              if (evRv) rv = evRv;
              if (ev.type === 'ERROR') {
                req.destroy();
                return;
              }
              if (ev.type !== 'BOOKMARK') onEvent(ev.type, ev.object);
            }
          });
          res.on('end', () => setTimeout(open, 10));
          res.on('error', () => undefined);
        },
      );
      req.on('error', () => {
        if (!stopped) setTimeout(open, 100);
      });
      req.end();
      current = req;
    };
    open();
    return {
      stop: () => {
        stopped = true;
        current?.destroy();
      },
    };
  }

  close(): void {
    this.#agent.destroy();
  }
}

export interface KubeObj {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
    ownerReferences?: { uid: string; controller?: boolean; name: string }[];
  };
  spec?: { replicas?: number; nodeName?: string };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    observedGeneration?: number;
    phase?: string;
    conditions?: { type: string; status: string }[];
  };
}
