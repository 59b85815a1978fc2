// The HTTP front: routing of the Kubernetes REST paths, authentication, faults, audit, and the verbs.
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { decodeKubeProtobuf } from '../apimachinery/protobuf.ts';
import type { TlsIdentity } from '../cmd/tls.ts';
import { parse as parseYaml } from 'yaml';
import { type Api, type FieldValidation, type ListQuery, type WriteOptions } from '../registry/api.ts';
import type { Audit } from './filters/audit.ts';
import type { Auth } from './filters/authentication.ts';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  versionInfo,
} from '../endpoints/discovery.ts';
import type { Faults } from './filters/faults.ts';
import { authorizeRbac, isServiceAccount } from './filters/authorization.ts';
import type { AuthorizationRequest } from '../admission/attributes.ts';
import {
  OPENAPI_V2_PROTOBUF,
  OPENAPI_V2_PROTOBUF_ASKED,
  OPENAPI_V2_PROTOBUF_DOCUMENT,
  openapiV2,
  openapiV3Document,
  openapiV3Index,
} from '../openapi/openapi.ts';
import { apiResourceId, apiVersionOf, type Registry, resourceId } from '../registry/resources.ts';
import { statusBody, successStatus, toApiError } from '../endpoints/status.ts';
import { negotiate, partialObjectMetadata } from '../endpoints/negotiate.ts';
import { includeObjectParam, table } from '../endpoints/table.ts';
import {
  ApiError,
  type DeleteOptions,
  type Json,
  type JsonObject,
  type KubeObject,
  type ResourceType,
} from '../apimachinery/types.ts';
import { serverSideApply } from '../fieldmanager/apply.ts';
import { typeViewOf } from '../fieldmanager/field-types.ts';
import { refuseUntypedApply } from '../apimachinery/type-check.ts';
import { duplicateFields } from '../apimachinery/json-duplicates.ts';
import { managerFromUserAgent } from '../fieldmanager/managed-fields.ts';
import type { WatchHub } from '../storage/watch.ts';

const MAX_BODY = 3 * 1024 * 1024;
const POD_SUBRESOURCES = new Set(['binding', 'eviction', 'log', 'exec', 'attach', 'portforward']);
/** What needs a kubelet: kube-sim has none, so it answers as an API server whose kubelet is unreachable. */
const KUBELET_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);
const KUBELET_PORT = 10250;
const DEFAULT_TOKEN_SECONDS = 3600;
const LIST_CHUNK = 2000;

export interface ServerDeps {
  api: Api;
  registry: Registry;
  hub: WatchHub;
  auth: Auth;
  audit: Audit;
  faults: Faults;
  /** The serving certificate and key (the CA goes into the kubeconfigs). */
  tls: TlsIdentity;
  /** Serve apidiscovery.k8s.io/v2 aggregated discovery when asked (default true). */
  aggregatedDiscovery?: boolean;
  /** PUT /kube-sim/controllers: run-time controller options; returns the options in force. */
  configureControllers?: ((changes: Record<string, unknown>) => unknown) | undefined;
}

interface RequestInfo {
  verb: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  user: string;
  /** Records the audit entry now (a watch is recorded when its stream starts). */
  record?: () => void;
}

interface ResourcePath {
  group: string;
  version: string;
  namespace: string | undefined;
  plural: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  watchPrefix: boolean;
}

/** Parses `/api/v1/...` and `/apis/<g>/<v>/...`; undefined for anything else. */
export function parseResourcePath(path: string): ResourcePath | undefined {
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    group = '';
    version = segs[1] as string;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    group = segs[1] as string;
    version = segs[2] as string;
    rest = segs.slice(3);
  } else {
    return undefined;
  }
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length > 3)
    return {
      group,
      version,
      namespace,
      plural: '\u0000',
      name: undefined,
      subresource: undefined,
      watchPrefix,
    };
  return { group, version, namespace, plural: rest[0], name: rest[1], subresource: rest[2], watchPrefix };
}

/**
 * A boolean query parameter as the API server converts one (apimachinery's string-slice-to-bool
 * conversion): absent → undefined; "0" and "false" in any case → false; anything else — "True" as the
 * Python client sends it, "", "yes" — → true.
 */
export function boolParam(v: string | null): boolean | undefined {
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw new ApiError(400, 'BadRequest', `invalid value for ${name}: "${v}"`);
  return Number(v);
}

function writeOptions(q: URLSearchParams, req?: IncomingMessage): WriteOptions {
  const dry = q.getAll('dryRun');
  for (const d of dry)
    if (d !== 'All')
      throw new ApiError(400, 'BadRequest', `Invalid dryRun value "${d}": only "All" is supported`);
  const fv = q.get('fieldValidation');
  if (fv !== null && fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore') {
    throw new ApiError(
      400,
      'BadRequest',
      `fieldValidation parameter unsupported: "${fv}". Supported values: Ignore, Warn, Strict`,
    );
  }
  const fieldManager =
    q.get('fieldManager') || (req ? managerFromUserAgent(String(req.headers['user-agent'] ?? '')) : '');
  return {
    dryRun: dry.length > 0,
    ...(fv ? { fieldValidation: fv as FieldValidation } : {}),
    ...(req ? { fieldManager } : {}),
    warnings: [],
  };
}

/**
 * A JSON response as the API server's encoder writes it (Go's json.Encoder): the document, then a newline.
 * Clients that read a body line by line (or frame it) depend on that newline.
 */
function send(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  sendBytes(res, code, body.endsWith('\n') ? body : `${body}\n`, headers);
}

/** The body as is: documents the API server writes without its encoder (OpenAPI, served as marshalled). */
function sendBytes(
  res: ServerResponse,
  code: number,
  body: string,
  headers: Record<string, string | string[]> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

const jsonCache = new WeakMap<object, string>();
/** The JSON text of a document that doesn't change once built (OpenAPI documents are cached per type set). */
function cachedJson(doc: object): string {
  let text = jsonCache.get(doc);
  if (text === undefined) jsonCache.set(doc, (text = JSON.stringify(doc)));
  return text;
}

function sendJson(
  res: ServerResponse,
  code: number,
  value: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  send(res, code, JSON.stringify(value), headers);
}

export function sendError(res: ServerResponse, err: unknown): void {
  const e = toApiError(err);
  const headers: Record<string, string> = {};
  if (e.retryAfterSeconds !== undefined) headers['Retry-After'] = String(e.retryAfterSeconds);
  sendJson(res, e.code, statusBody(e), headers);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
        req.destroy();
        return;
      }
      chunks.push(b);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseBody(buf: Buffer, contentType: string | undefined): unknown {
  const ct = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
  if (ct === 'application/vnd.kubernetes.protobuf') return decodeKubeProtobuf(buf);
  const text = buf.toString('utf8');
  if (!text.trim()) throw new ApiError(400, 'BadRequest', 'the request body is empty');
  if (ct.includes('protobuf') || ct.includes('cbor')) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
    );
  }
  try {
    // The API server reads YAML as YAML 1.1 (sigs.k8s.io/yaml): an unquoted yes, no, on or off is a boolean.
    if (ct === 'application/yaml' || ct === 'application/apply-patch+yaml')
      return parseYaml(text, { version: '1.1' }) as unknown;
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ApiError(
      400,
      'BadRequest',
      `error decoding request body: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/** A write's body, parsed; the keys a JSON body repeats go to fieldValidation (unless it is Ignore). */
function bodyOf(buf: Buffer, contentType: string | undefined, opts: WriteOptions): unknown {
  const body = parseBody(buf, contentType);
  const ct = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
  if (opts.fieldValidation !== 'Ignore' && (ct === 'application/json' || ct.endsWith('+json'))) {
    const duplicates = duplicateFields(buf.toString('utf8'));
    if (duplicates.length) opts.duplicateFields = duplicates;
  }
  return body;
}

/** A written object as the answer shows it: a Scale as is, an object of `t` in its served form. */
function writtenJson(api: Api, t: ResourceType, sub: string | undefined, out: unknown): string {
  return sub === 'scale' ? JSON.stringify(out) : api.jsonFor(t, out as KubeObject);
}

function warningHeaders(opts: WriteOptions): Record<string, string[]> {
  const w = opts.warnings ?? [];
  if (!w.length) return {};
  return { Warning: w.map((m) => `299 - ${JSON.stringify(m)}`) };
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

  constructor(deps: ServerDeps) {
    this.deps = deps;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      void this.handle(req, res);
    };
    this.http = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, handler);
    this.https = createHttpsServer(
      { keepAliveTimeout: 65_000, requestTimeout: 0, key: deps.tls.key, cert: deps.tls.cert },
      handler,
    );
    // Upgrade requests (exec, attach, port-forward over SPDY or WebSocket) get an ordinary HTTP answer:
    // kube-sim never switches protocols (see kubeletUnreachable).
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const info: RequestInfo = { verb: '', resource: '', subresource: '', namespace: '', name: '', user: '' };
    let audited = false;
    const record = (): void => {
      if (audited) return;
      audited = true;
      this.deps.audit.record({
        time: new Date().toISOString(),
        userAgent: String(req.headers['user-agent'] ?? ''),
        user: info.user,
        verb: info.verb || req.method?.toLowerCase() || '',
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name,
        code: res.statusCode,
        latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
        method: req.method ?? '',
        path,
      });
    };
    info.record = record;
    res.on('finish', record);
    res.on('close', record);
    try {
      if (
        path === '/healthz' ||
        path === '/readyz' ||
        path === '/livez' ||
        /^\/(healthz|readyz|livez)\//.test(path)
      ) {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('ok');
        return;
      }
      if (path === '/version') {
        sendJson(res, 200, versionInfo());
        return;
      }
      info.user = this.deps.auth.authenticate(req.headers.authorization);
      const delay = this.deps.faults.delayMs();
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      if (path.startsWith('/kube-sim/')) {
        await this.control(req, res, path, url.searchParams, info.user);
        return;
      }
      if (path.startsWith('/openapi/')) {
        this.openapi(path, res, url.searchParams, String(req.headers.accept ?? ''));
        return;
      }
      const accept = String(req.headers.accept ?? '');
      if (path === '/api' || path === '/apis') {
        if (
          this.deps.aggregatedDiscovery !== false &&
          /as=APIGroupDiscoveryList/.test(accept) &&
          /v=v2(;|,|$)/.test(accept)
        ) {
          send(res, 200, JSON.stringify(aggregatedDiscovery(this.deps.registry, path === '/api')), {
            'Content-Type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
          });
          return;
        }
        sendJson(
          res,
          200,
          path === '/api'
            ? apiVersions(`${req.socket.localAddress}:${req.socket.localPort}`)
            : apiGroupList(this.deps.registry),
        );
        return;
      }
      const groupOnly = /^\/apis\/([^/]+)$/.exec(path);
      if (groupOnly) {
        const doc = apiGroup(this.deps.registry, decodeURIComponent(groupOnly[1] as string));
        if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
        sendJson(res, 200, doc);
        return;
      }
      const rp = parseResourcePath(path);
      if (!rp) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      if (rp.plural === undefined) {
        const doc = apiResourceList(this.deps.registry, rp.group, rp.version);
        if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
        sendJson(res, 200, doc);
        return;
      }
      await this.resource(req, res, url.searchParams, rp, info, accept);
    } catch (e) {
      sendError(res, e);
    }
  }

  /** Server-side apply (apply.ts): the configuration merged in with field ownership and conflicts. */
  private async apply(
    req: IncomingMessage,
    res: ServerResponse,
    q: URLSearchParams,
    t: ResourceType,
    ns: string | undefined,
    name: string,
    status: boolean,
    opts: WriteOptions,
  ): Promise<void> {
    const { api } = this.deps;
    const manager = q.get('fieldManager');
    if (!manager) {
      throw new ApiError(
        422,
        'Invalid',
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        {
          causes: [
            {
              reason: 'FieldValueRequired',
              field: 'fieldManager',
              message: 'Required value: is required for apply patch',
            },
          ],
        },
      );
    }
    const body = parseBody(await readBody(req), 'application/apply-patch+yaml');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ApiError(400, 'BadRequest', 'the apply configuration must be an object');
    }
    const config = body as JsonObject;
    const meta = (config.metadata ?? {}) as Record<string, unknown>;
    if (meta.name !== undefined && meta.name !== name) {
      throw new ApiError(
        400,
        'BadRequest',
        `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
      );
    }
    const custom = api.registry.isCrdType(t);
    refuseUntypedApply(t, config, typeViewOf(t, custom), { namespace: ns, name });
    const force = boolParam(q.get('force')) === true;
    const r = serverSideApply(api, { t, namespace: ns, name, config, manager, force, status }, opts);
    send(res, r.created ? 201 : 200, api.jsonFor(t, r.object), warningHeaders(opts));
  }

  /** Throws 403 unless the user may: service accounts by the stored RBAC, the built-in identities by Auth. */
  private authorize(user: string, r: AuthorizationRequest): void {
    if (isServiceAccount(user)) authorizeRbac(this.deps.api.store, { user, ...r });
    else this.deps.auth.authorize(user, r.verb, r.resource, r.namespace);
  }

  /** Who writes, for the admission chain's plugins that judge the writer (`_ns`: no plugin needs it). */
  private admission(user: string, _ns: string | undefined): Pick<WriteOptions, 'requester'> {
    return { requester: { user, authorize: (r) => this.authorize(user, r) } };
  }

  /** serviceaccounts/token: a bearer token for the service account, authorized by the stored RBAC. */
  private async tokenRequest(
    req: IncomingMessage,
    res: ServerResponse,
    ns: string,
    name: string,
  ): Promise<void> {
    const { api, auth } = this.deps;
    const saType = api.registry.lookup('', 'v1', 'serviceaccounts') as ResourceType;
    const buf = await readBody(req);
    api.get(saType, ns, name); // 404 when the service account doesn't exist
    let spec: { audiences?: string[]; expirationSeconds?: number } = {};
    if (buf.length) {
      const body = parseBody(buf, req.headers['content-type']) as { spec?: typeof spec };
      spec = body.spec ?? {};
    }
    const seconds =
      typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_TOKEN_SECONDS;
    const now = Date.now();
    sendJson(res, 201, {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: {
        name,
        namespace: ns,
        creationTimestamp: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
      spec: {
        audiences: spec.audiences ?? ['https://kubernetes.default.svc'],
        expirationSeconds: seconds,
        boundObjectRef: null,
      },
      status: {
        token: auth.issueServiceAccountToken(ns, name),
        expirationTimestamp: new Date(now + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    });
  }

  /** pods/binding (POST), pods/eviction (POST), pods/log (GET). */
  private async podSubresource(
    req: IncomingMessage,
    res: ServerResponse,
    q: URLSearchParams,
    sub: string,
    verb: string,
    ns: string,
    name: string,
  ): Promise<void> {
    const { api } = this.deps;
    if (KUBELET_SUBRESOURCES.has(sub)) {
      if (verb !== 'get' && verb !== 'create') throw methodNotAllowed();
      this.kubeletUnreachable(req, q, sub, ns, name);
    }
    if (sub === 'log') {
      if (verb !== 'get') throw methodNotAllowed();
      const p = api.get(api.registry.lookup('', 'v1', 'pods') as ResourceType, ns, name);
      const spec = (p.spec ?? {}) as { containers?: { name?: string }[] };
      const container = q.get('container') ?? spec.containers?.[0]?.name ?? '';
      const text = `kube-sim: simulated container ${container} of pod ${ns}/${name} (no real logs)\n`;
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    if (verb !== 'create') throw methodNotAllowed();
    const opts = writeOptions(q);
    const body = await requestBody(req);
    if (sub === 'binding') api.bind(ns, name, body, opts);
    else api.evict(ns, name, body, opts);
    sendJson(res, 201, successStatus());
  }

  /**
   * exec, attach and port-forward go through the API server to the pod's kubelet, which kube-sim does not
   * run. So it answers as an API server does when it cannot reach one: the same checks first (the pod,
   * the container, a node assigned, an upgrade request), then the dial error, a 500 whose message kubectl
   * prints as "Error from server: error dialing backend: …".
   */
  private kubeletUnreachable(
    req: IncomingMessage,
    q: URLSearchParams,
    sub: string,
    ns: string,
    name: string,
  ): never {
    const { api } = this.deps;
    const pod = api.get(api.registry.lookup('', 'v1', 'pods') as ResourceType, ns, name);
    const spec = (pod.spec ?? {}) as {
      nodeName?: string;
      containers?: { name?: string }[];
      initContainers?: { name?: string }[];
    };
    const container = q.get('container');
    const names = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c) => c.name);
    if (sub !== 'portforward' && container !== null && !names.includes(container)) {
      throw new ApiError(400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
    }
    if (!spec.nodeName) throw new ApiError(400, 'BadRequest', `pod ${name} does not have a host assigned`);
    if (!/upgrade/i.test(String(req.headers.connection ?? ''))) {
      throw new ApiError(400, 'BadRequest', 'Upgrade request required');
    }
    const hostIP = (pod.status as { hostIP?: string } | undefined)?.hostIP ?? spec.nodeName;
    throw new ApiError(
      500,
      '',
      `error dialing backend: dial tcp ${hostIP}:${KUBELET_PORT}: connect: connection refused`,
    );
  }

  /** Run-time control for scripts in other processes (admin identity only): faults, history, restart, pause, audit. */
  private async control(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    q: URLSearchParams,
    user: string,
  ): Promise<void> {
    const { faults, audit } = this.deps;
    if (user !== 'admin')
      throw new ApiError(403, 'Forbidden', `User "${user}" cannot use the kube-sim control API`);
    const method = req.method ?? 'GET';
    const body = async (): Promise<Record<string, unknown>> => {
      const buf = await readBody(req);
      return buf.length ? (parseBody(buf, 'application/json') as Record<string, unknown>) : {};
    };
    if (path === '/kube-sim/faults' && method === 'GET') {
      sendJson(res, 200, faults.snapshot());
      return;
    }
    if (path === '/kube-sim/faults' && (method === 'PUT' || method === 'POST')) {
      const b = await body();
      if (b.reset === true) faults.reset();
      faults.set(b);
      sendJson(res, 200, faults.snapshot());
      return;
    }
    if (path === '/kube-sim/faults/expire-watches' && method === 'POST') {
      faults.expireNextWatch(Number(q.get('n') ?? '1'));
      sendJson(res, 200, faults.snapshot());
      return;
    }
    if (path === '/kube-sim/faults/stall-watches' && method === 'POST') {
      sendJson(res, 200, { stalled: faults.stallWatches() });
      return;
    }
    if (path === '/kube-sim/history' && method === 'POST') {
      const b = await body();
      if (b.compact === true) faults.compactHistory();
      if (typeof b.limit === 'number') faults.setHistoryLimit(b.limit);
      sendJson(res, 200, successStatus());
      return;
    }
    if ((path === '/kube-sim/restart' || path === '/kube-sim/pause') && method === 'POST') {
      const ms = Number(q.get('ms') ?? '1000');
      res.on('finish', () => {
        setTimeout(() => {
          void (async () => {
            await this.stopListening();
            if (path === '/kube-sim/restart') this.deps.hub.restartCache();
            if (q.get('compact') === 'true') faults.compactHistory();
            if (path === '/kube-sim/pause') await new Promise((r) => setTimeout(r, ms));
            await this.relisten();
          })();
        }, 10);
      });
      sendJson(res, 202, successStatus());
      return;
    }
    if (path === '/kube-sim/controllers' && (method === 'PUT' || method === 'POST')) {
      const configure = this.deps.configureControllers;
      if (!configure) throw new ApiError(404, 'NotFound', 'no controllers are running');
      const b = await body();
      try {
        sendJson(res, 200, configure(b));
      } catch (e) {
        throw e instanceof ApiError
          ? e
          : new ApiError(400, 'BadRequest', e instanceof Error ? e.message : String(e));
      }
      return;
    }
    if (path === '/kube-sim/audit' && method === 'GET') {
      const pick = (k: string): string | undefined => q.get(k) ?? undefined;
      const code = q.get('code');
      sendJson(
        res,
        200,
        audit.query({
          ...(pick('user') ? { user: pick('user') } : {}),
          ...(pick('verb') ? { verb: pick('verb') } : {}),
          ...(pick('resource') ? { resource: pick('resource') } : {}),
          ...(pick('namespace') ? { namespace: pick('namespace') } : {}),
          ...(pick('name') ? { name: pick('name') } : {}),
          ...(pick('since') ? { since: pick('since') } : {}),
          ...(code ? { code: Number(code) } : {}),
        }),
      );
      return;
    }
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  }

  private openapi(path: string, res: ServerResponse, q: URLSearchParams, accept: string): void {
    const types = this.deps.registry.all();
    if (path === '/openapi/v2') {
      if (OPENAPI_V2_PROTOBUF_ASKED.test(accept) && !/json|\*\/\*/.test(accept)) {
        res.writeHead(200, {
          'Content-Type': OPENAPI_V2_PROTOBUF,
          'Content-Length': OPENAPI_V2_PROTOBUF_DOCUMENT.length,
        });
        res.end(OPENAPI_V2_PROTOBUF_DOCUMENT);
        return;
      }
      if (accept && !/json|\*\/\*/.test(accept)) {
        throw new ApiError(406, 'NotAcceptable', 'only application/json is served for /openapi/v2');
      }
      sendBytes(res, 200, cachedJson(openapiV2(types)));
      return;
    }
    if (path === '/openapi/v3') {
      sendBytes(res, 200, cachedJson(openapiV3Index(types)));
      return;
    }
    const entry = openapiV3Document(types, path.slice('/openapi/v3/'.length));
    if (!entry) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    sendBytes(res, 200, cachedJson(entry.doc), {
      ETag: `"${entry.hash}"`,
      'Cache-Control': q.get('hash') === entry.hash ? 'public, immutable' : 'no-cache, private',
    });
  }

  private async resource(
    req: IncomingMessage,
    res: ServerResponse,
    q: URLSearchParams,
    rp: ResourcePath,
    info: RequestInfo,
    accept: string,
  ): Promise<void> {
    const { api, registry, faults } = this.deps;
    const method = req.method ?? 'GET';
    if (rp.plural === '\u0000')
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const plural = rp.plural as string;
    const t = registry.lookup(rp.group, rp.version, plural);
    info.resource = plural;
    info.namespace = rp.namespace ?? '';
    info.name = rp.name ?? '';
    info.subresource = rp.subresource ?? '';
    const isWatch = rp.watchPrefix || boolParam(q.get('watch')) === true;
    let verb: string;
    if (method === 'GET')
      verb = rp.name !== undefined && !rp.watchPrefix ? 'get' : isWatch ? 'watch' : 'list';
    else if (method === 'POST') verb = 'create';
    else if (method === 'PUT') verb = 'update';
    else if (method === 'PATCH') verb = 'patch';
    else if (method === 'DELETE') verb = rp.name !== undefined ? 'delete' : 'deletecollection';
    else
      throw new ApiError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource`,
      );
    if (rp.watchPrefix && rp.name !== undefined) verb = 'watch';
    info.verb = verb;
    if (!t) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (t.namespaced === false && rp.namespace !== undefined) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    // Every authenticated user may ask what it may do (system:basic-user).
    if (resourceId(t) === 'selfsubjectaccessreviews.authorization.k8s.io' && verb === 'create') {
      const body = (await requestBody(req)) as {
        spec?: {
          resourceAttributes?: Record<string, string>;
          nonResourceAttributes?: Record<string, string>;
        };
      };
      const ra = body.spec?.resourceAttributes;
      let allowed = true;
      let reason = '';
      if (ra) {
        try {
          this.authorize(info.user, {
            verb: ra.verb ?? '',
            group: ra.group ?? '',
            resource: ra.resource ?? '',
            subresource: ra.subresource ?? '',
            namespace: ra.namespace || undefined,
            name: ra.name || undefined,
          });
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 403)) throw e;
          allowed = false;
          reason = e.message;
        }
      }
      sendJson(res, 201, {
        kind: 'SelfSubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: {},
        spec: body.spec ?? {},
        status: { allowed, ...(reason ? { reason } : {}) },
      });
      return;
    }
    this.authorize(info.user, {
      verb,
      group: rp.group,
      resource: plural,
      subresource: rp.subresource ?? '',
      namespace: rp.namespace,
      name: rp.name,
    });
    faults.check(verb, plural, rp.subresource ?? '');
    const sub = rp.subresource;
    if (sub === 'token' && resourceId(t) === 'serviceaccounts') {
      if (verb !== 'create') throw methodNotAllowed();
      await this.tokenRequest(req, res, rp.namespace ?? '', rp.name ?? '');
      return;
    }
    if (sub !== undefined && resourceId(t) === 'pods' && POD_SUBRESOURCES.has(sub)) {
      await this.podSubresource(req, res, q, sub, verb, rp.namespace ?? '', rp.name ?? '');
      return;
    }
    if (sub !== undefined && sub !== 'status' && sub !== 'scale') {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (sub === 'status' && !t.subresources.status)
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (sub === 'scale' && !t.subresources.scale)
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const baseVerb = verb === 'watch' && rp.name !== undefined ? 'watch' : verb;
    if (!t.verbs.includes(baseVerb) && sub === undefined) {
      throw new ApiError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource`,
      );
    }
    if (t.namespaced && rp.namespace === undefined && rp.name !== undefined && verb !== 'watch') {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    const ns = t.namespaced ? rp.namespace : undefined;
    const name = rp.name;
    const as = verb === 'get' || verb === 'list' || verb === 'watch' ? negotiate(accept, verb) : 'object';
    const table_ = as === 'Table';

    switch (verb) {
      case 'get': {
        if (sub === 'scale') {
          sendJson(res, 200, api.getScale(t, ns, name as string));
          return;
        }
        const obj = api.get(t, ns, name as string);
        if (table_ && !sub) {
          sendJson(
            res,
            200,
            table(t, apiResourceId(t), [obj], {
              includeObject: includeObjectParam(q.get('includeObject')),
              withColumns: true,
              now: Date.now(),
              resourceVersion: obj.metadata.resourceVersion as string,
            }),
          );
          return;
        }
        if (as === 'PartialObjectMetadata' && !sub) {
          sendJson(res, 200, partialObjectMetadata(obj));
          return;
        }
        const rec = api.getRec(t, ns, name as string);
        send(res, 200, api.jsonOf(t, rec));
        return;
      }
      case 'list': {
        const lq = listQuery(q);
        const r = api.list(t, ns, lq);
        if (table_) {
          sendJson(
            res,
            200,
            table(
              t,
              apiResourceId(t),
              r.items.map((x) => api.present(t, x.obj)),
              {
                includeObject: includeObjectParam(q.get('includeObject')),
                withColumns: true,
                now: Date.now(),
                resourceVersion: String(r.resourceVersion),
                ...(r.continue ? { continue: r.continue } : {}),
                ...(r.remainingItemCount !== undefined ? { remainingItemCount: r.remainingItemCount } : {}),
              },
            ),
          );
          return;
        }
        if (as === 'PartialObjectMetadataList') {
          sendJson(res, 200, {
            kind: 'PartialObjectMetadataList',
            apiVersion: 'meta.k8s.io/v1',
            metadata: {
              resourceVersion: String(r.resourceVersion),
              ...(r.continue ? { continue: r.continue } : {}),
              ...(r.remainingItemCount !== undefined ? { remainingItemCount: r.remainingItemCount } : {}),
            },
            items: r.items.map((x) => partialObjectMetadata(api.present(t, x.obj))),
          });
          return;
        }
        let meta = `"resourceVersion":"${r.resourceVersion}"`;
        if (r.continue) meta += `,"continue":${JSON.stringify(r.continue)}`;
        if (r.remainingItemCount !== undefined) meta += `,"remainingItemCount":${r.remainingItemCount}`;
        const head = `{"kind":"${t.listKind}","apiVersion":"${apiVersionOf(t)}","metadata":{${meta}},"items":[`;
        if (r.items.length <= LIST_CHUNK) {
          send(res, 200, `${head}${r.items.map((x) => api.jsonOf(t, x)).join(',')}]}`);
          return;
        }
        // Big lists are streamed in chunks (no Content-Length): no single huge string is built.
        // The items are a consistent snapshot (stored objects never change), so waiting for the client to
        // drain between chunks is safe and bounds the memory a big list holds.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(head);
        for (let i = 0; i < r.items.length; i += LIST_CHUNK) {
          const part = r.items.slice(i, i + LIST_CHUNK).map((x) => api.jsonOf(t, x));
          if (!res.write((i > 0 ? ',' : '') + part.join(','))) {
            await new Promise<void>((resolve) => {
              const done = (): void => {
                res.off('drain', done);
                res.off('close', done);
                resolve();
              };
              res.on('drain', done);
              res.on('close', done);
            });
            if (res.destroyed) return;
          }
        }
        res.end(']}\n');
        return;
      }
      case 'watch': {
        let fieldSelector = q.get('fieldSelector') ?? undefined;
        if (name !== undefined)
          fieldSelector = [`metadata.name=${name}`, fieldSelector].filter(Boolean).join(',');
        const filter = api.filterFor(t, q.get('labelSelector') ?? undefined, fieldSelector);
        this.deps.hub.serve(
          {
            t,
            namespace: ns,
            resourceVersion: q.get('resourceVersion') ?? undefined,
            resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
            sendInitialEvents: boolParam(q.get('sendInitialEvents')),
            allowBookmarks: boolParam(q.get('allowWatchBookmarks')) === true,
            timeoutSeconds: intParam(q, 'timeoutSeconds'),
            filter,
            table: table_ ? { includeObject: includeObjectParam(q.get('includeObject')) } : undefined,
            partial: as === 'PartialObjectMetadata',
          },
          res,
        );
        info.record?.();
        return;
      }
      case 'create': {
        if (name !== undefined) throw methodNotAllowed();
        const opts = { ...writeOptions(q, req), ...this.admission(info.user, ns) };
        const body = bodyOf(await readBody(req), req.headers['content-type'], opts);
        const obj = api.create(t, ns, body, opts);
        info.name = obj.metadata.name ?? '';
        send(res, 201, api.jsonFor(t, obj), warningHeaders(opts));
        return;
      }
      case 'update': {
        if (name === undefined) throw methodNotAllowed();
        const opts = { ...writeOptions(q, req), ...this.admission(info.user, ns) };
        const body = bodyOf(await readBody(req), req.headers['content-type'], opts);
        let out: unknown;
        if (sub === 'scale') out = api.updateScale(t, ns, name, body, opts);
        else if (sub === 'status') out = api.updateStatus(t, ns, name, body, opts);
        else out = api.update(t, ns, name, body, opts);
        send(res, 200, writtenJson(api, t, sub, out), warningHeaders(opts));
        return;
      }
      case 'patch': {
        if (name === undefined) throw methodNotAllowed();
        const opts = { ...writeOptions(q, req), ...this.admission(info.user, ns) };
        const ct =
          String(req.headers['content-type'] ?? '')
            .split(';')[0]
            ?.trim()
            .toLowerCase() ?? '';
        const known = [
          'application/merge-patch+json',
          'application/json-patch+json',
          'application/strategic-merge-patch+json',
        ];
        if (ct !== 'application/apply-patch+yaml' && boolParam(q.get('force')) === true)
          throw forceNotAllowed();
        if (ct === 'application/apply-patch+yaml' && sub !== 'scale') {
          await this.apply(req, res, q, t, ns, name, sub === 'status', opts);
          return;
        }
        if (!known.includes(ct)) {
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json${registry.isCrdType(t) ? '' : ', application/strategic-merge-patch+json'}`,
          );
        }
        const body = bodyOf(await readBody(req), 'application/json', opts);
        const out = api.patch(t, ns, name, ct, body, (sub ?? '') as '' | 'status' | 'scale', opts);
        send(res, 200, writtenJson(api, t, sub, out), warningHeaders(opts));
        return;
      }
      case 'delete':
      case 'deletecollection': {
        const opts = writeOptions(q);
        const buf = await readBody(req);
        const dopts = deleteOptions(q, buf, req.headers['content-type'], opts);
        if (verb === 'delete') {
          const r = api.delete(t, ns, name as string, dopts, opts);
          // As kube-apiserver: 202 only when deletion is pending and orphanDependents=false was asked for.
          const code = !r.removed && dopts.orphanDependents === false ? 202 : 200;
          sendJson(res, code, r.object, warningHeaders(opts));
        } else {
          const lq = listQuery(q);
          api.deleteCollection(t, ns, lq, dopts, opts);
          sendJson(res, 200, successStatus());
        }
        return;
      }
    }
  }
}

function listQuery(q: URLSearchParams): ListQuery {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
  };
}

const isProtobuf = (contentType: string | undefined): boolean =>
  (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/vnd.kubernetes.protobuf';

function deleteOptions(
  q: URLSearchParams,
  buf: Buffer,
  contentType: string | undefined,
  opts: WriteOptions,
): DeleteOptions & { orphanDependents?: boolean } {
  const out: DeleteOptions & { orphanDependents?: boolean } = {};
  const text = buf.toString('utf8').trim();
  if (text) {
    let body: Record<string, Json>;
    try {
      body = (isProtobuf(contentType) ? decodeKubeProtobuf(buf) : (JSON.parse(text) as unknown)) as Record<
        string,
        Json
      >;
    } catch {
      throw new ApiError(400, 'BadRequest', 'error decoding DeleteOptions');
    }
    if (typeof body.gracePeriodSeconds === 'number') out.gracePeriodSeconds = body.gracePeriodSeconds;
    if (typeof body.propagationPolicy === 'string')
      out.propagationPolicy = body.propagationPolicy as DeleteOptions['propagationPolicy'];
    if (typeof body.orphanDependents === 'boolean') out.orphanDependents = body.orphanDependents;
    const pre = body.preconditions;
    if (pre && typeof pre === 'object' && !Array.isArray(pre)) {
      out.preconditions = {
        ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
        ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
      };
    }
    if (Array.isArray(body.dryRun) && body.dryRun.includes('All')) opts.dryRun = true;
  }
  const g = intParam(q, 'gracePeriodSeconds');
  if (g !== undefined) out.gracePeriodSeconds = g;
  const pp = q.get('propagationPolicy');
  if (pp) out.propagationPolicy = pp as DeleteOptions['propagationPolicy'];
  const od = boolParam(q.get('orphanDependents'));
  if (od !== undefined) out.orphanDependents = od;
  if (out.propagationPolicy && !['Background', 'Foreground', 'Orphan'].includes(out.propagationPolicy)) {
    throw new ApiError(
      422,
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${out.propagationPolicy}"`,
      {
        causes: [
          {
            reason: 'FieldValueNotSupported',
            field: 'propagationPolicy',
            message: `Unsupported value: "${out.propagationPolicy}"`,
          },
        ],
      },
    );
  }
  return out;
}

export type { KubeObject, ResourceType };

/** `force` belongs to apply patches only. */
function forceNotAllowed(): ApiError {
  return new ApiError(
    422,
    'Invalid',
    'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    {
      causes: [
        {
          reason: 'FieldValueForbidden',
          field: 'force',
          message: 'Forbidden: may not be specified for non-apply patch',
        },
      ],
    },
  );
}

/** What the API server answers for a verb a resource does not serve. */
function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  );
}

/** The request body, decoded by its Content-Type. */
async function requestBody(req: IncomingMessage): Promise<unknown> {
  return parseBody(await readBody(req), req.headers['content-type']);
}
