// The API server's front: one port that speaks HTTPS and plain HTTP, handing each request to the router
// (./router.ts: filters, then the control API, discovery, OpenAPI or a resource's handler in ../endpoints/).
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { TlsIdentity } from './tls.ts';
import type { Api, WriteOptions } from '../registry/api.ts';
import type { EndpointDeps } from '../endpoints/request/request-scope.ts';
import type { Registry } from '../registry/rest/resources.ts';
import type { WatchHub } from '../storage/watch.ts';
import { authorizer, type Authorizer } from './filters/authorization.ts';
import { createRouter, type RouterDeps } from './router.ts';

export interface ServerDeps extends RouterDeps {
  api: Api;
  registry: Registry;
  hub: WatchHub;
  /** The serving certificate and key (the CA goes into the kubeconfigs). */
  tls: TlsIdentity;
}

/**
 * One port, two protocols: a connection whose first byte is a TLS handshake goes to the HTTPS server, any
 * other to plain HTTP. kubectl only sends bearer tokens over TLS (its kubeconfig says https://); simple test
 * clients may use http:// with an Authorization header.
 */
export class KubeServer {
  readonly deps: ServerDeps;
  readonly http: Server;
  readonly https: HttpsServer;
  private readonly listener: NetServer;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private host = '127.0.0.1';
  private listening = false;
  private readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;

  constructor(deps: ServerDeps) {
    this.deps = deps;
    const authorize = authorizer(deps.auth, deps.api.store);
    const endpoints: EndpointDeps = {
      api: deps.api,
      registry: deps.registry,
      hub: deps.hub,
      issueServiceAccountToken: (ns, name) => deps.auth.issueServiceAccountToken(ns, name),
      admission: (user) => this.admission(authorize, user),
    };
    const route = createRouter(deps, endpoints, authorize, this);
    this.handle = (req, res) => route(req, res);
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      void this.handle(req, res);
    };
    this.http = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, handler);
    this.https = createHttpsServer(
      { keepAliveTimeout: 65_000, requestTimeout: 0, key: deps.tls.key, cert: deps.tls.cert },
      handler,
    );
    // Upgrade requests (exec, attach, port-forward over SPDY or WebSocket) get an ordinary HTTP answer:
    // kube-sim never switches protocols (see ../endpoints/subresources/kubelet.ts).
    const upgrade = (req: IncomingMessage, socket: Socket): void => {
      // The HTTP server hands an upgraded socket over with no error listener of its own.
      socket.on('error', () => socket.destroy());
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket);
      res.on('finish', () => {
        res.detachSocket(socket);
        socket.end();
      });
      void this.handle(req, res);
    };
    this.http.on('upgrade', upgrade);
    this.https.on('upgrade', upgrade);
    this.listener = createNetServer((s: Socket) => {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => s.destroy());
      s.once('data', (first: Buffer) => {
        s.pause();
        s.unshift(first);
        (first[0] === 0x16 ? this.https : this.http).emit('connection', s);
        process.nextTick(() => s.resume());
      });
    });
  }

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  get httpsUrl(): string {
    return `https://${this.host}:${this.port}`;
  }

  async listen(port: number, host = '127.0.0.1'): Promise<void> {
    this.host = host;
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error): void => reject(e);
      this.listener.once('error', onError);
      this.listener.listen(port, host, () => {
        this.listener.off('error', onError);
        resolve();
      });
    });
    const addr = this.listener.address();
    if (addr && typeof addr === 'object') this.port = addr.port;
    this.listening = true;
  }

  /** Stops accepting connections and drops the open ones (watches end with a reset). */
  async stopListening(): Promise<void> {
    this.deps.hub.closeAll('reset');
    if (this.listening) {
      this.listening = false;
      const closed = new Promise<void>((resolve) => this.listener.close(() => resolve()));
      for (const s of this.sockets) s.destroy();
      await closed;
    }
  }

  /** Listens again on the same port. */
  async relisten(): Promise<void> {
    if (this.listening) return;
    await this.listen(this.port, this.host);
  }

  /** Who writes, for the admission chain's plugins that judge the writer (owner references). */
  private admission(authorize: Authorizer, user: string): Pick<WriteOptions, 'requester'> {
    return { requester: { user, authorize: (r) => authorize(user, r) } };
  }
}
