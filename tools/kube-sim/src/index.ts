// kube-sim: an in-memory Kubernetes API server for tests, demos and benchmarks.
import { join } from 'node:path';
import { admissionChain, OPTIONAL_PLUGINS, type OptionalPlugin } from './admission/chain.ts';
import { Api } from './registry/api.ts';
import { Audit } from './server/filters/audit.ts';
import { Auth, type AuthOptions } from './server/filters/authentication.ts';
import { Cluster } from './registry/cluster-access.ts';
import { type CrdFinalizer, startCrdFinalizer } from './apiextensions/crd-finalizer.ts';
import {
  DataDirWriter,
  SNAPSHOT_FILE,
  type Saved,
  loadDataDir,
  restoreObjects,
} from './controlplane/data-dir.ts';
import { type FaultOptions, Faults } from './server/filters/faults.ts';
import { Kubeconfigs } from './server/kubeconfig.ts';
import { Registry } from './registry/rest/resources.ts';
import { KubeServer } from './server/server.ts';
import { Store } from './storage/store.ts';
import { processTlsIdentity, type TlsIdentity } from './server/tls.ts';
import { type ControllerOptions, type Controllers, startControllers } from './controllers/index.ts';
import type { ClusterAccess, ResourceType } from './apimachinery/types.ts';
import { WatchHub } from './storage/watch.ts';
import {
  type KubernetesService,
  advertisedAddress,
  startKubernetesService,
} from './controlplane/kubernetes-service.ts';

export type { AuditEntry, AuditQuery } from './server/filters/audit.ts';
export type { ErrorRule, FaultOptions } from './server/filters/faults.ts';
export type { ControllerOptions, Controllers, RuntimeControllerOptions } from './controllers/index.ts';
export { Audit } from './server/filters/audit.ts';
export { DataDirError } from './controlplane/data-dir.ts';
export { Faults } from './server/filters/faults.ts';
/** The simulator's seeded PRNG (mulberry32), for tests and tools that want the same repeatable randomness. */
export { seededRandom } from './controllers/util.ts';
export * from './apimachinery/types.ts';

export interface KubeSimOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Where to write the admin kubeconfig (default: a file in a fresh temp directory). */
  kubeconfigPath?: string;
  /** Identity of the written kubeconfig (default admin). */
  kubeconfigIdentity?: string;
  /** Also write one kubeconfig per identity as `<dir>/<identity>` (mode 0600, like every kubeconfig it writes). */
  kubeconfigDir?: string;
  /**
   * Also write the kubeconfig of each identity named here to its file (identity → path), e.g. one per
   * volume, so that each app of docker-compose.yml mounts its own identity's kubeconfig and no other.
   */
  kubeconfigFiles?: Record<string, string>;
  /**
   * The server URL written into kubeconfigs (default https://<host>:<port>), e.g. `https://kube-sim:6443` when
   * clients reach the simulator by another name; an https host the certificate doesn't name gets
   * `tls-server-name: localhost`.
   */
  advertiseUrl?: string;
  /**
   * Keep the identity (CA, serving certificate, tokens) and every object in this directory across restarts,
   * as etcd's data dir: loaded at start when it holds a snapshot (a corrupt one is a DataDirError), saved at
   * most `snapshotIntervalMs` after a change and at close. Watch history is not kept: a watch from an older
   * resourceVersion gets 410 Gone after a restart. Without it, everything is in memory and new at each start.
   */
  dataDir?: string;
  /** With `dataDir`: how long a change may wait before the snapshot is written (default 1000 ms). */
  snapshotIntervalMs?: number;
  /** Append every request as a JSON line to this file. */
  auditLog?: string;
  /** Tokens and identities (default: admin, watcher, worker, controller, viewer; viewer is read-only). */
  auth?: AuthOptions;
  /** How many committed events are kept for watch resume and reads at older resourceVersions (default 20000). */
  historyLimit?: number;
  /**
   * How often watches with allowWatchBookmarks get a BOOKMARK, as kube-apiserver: about every this many
   * ms (and just before timeoutSeconds ends the watch), only once the resource has changed since the
   * watch's start (default 60000 ms, the real server's; 0: never).
   */
  bookmarkIntervalMs?: number;
  faults?: FaultOptions;
  /** Run the in-process controllers: simulated nodes, pod lifecycle, GC, namespaces (default true). */
  controllers?: boolean;
  /** Passed to startControllers (e.g. `{ podLifecycle: false, nodes: 5, failFraction: 0.1 }`). */
  controllerOptions?: ControllerOptions;
  /** Serve apidiscovery.k8s.io/v2 aggregated discovery (default true). */
  aggregatedDiscovery?: boolean;
  /**
   * Admission plugins off by default in kube-apiserver, as its `--enable-admission-plugins` turns them on:
   * `OwnerReferencesPermissionEnforcement` (setting an ownerReference needs `delete` on the object,
   * blockOwnerDeletion=true needs `update` on the owner's `finalizers`).
   */
  admissionPlugins?: AdmissionPlugin[];
}

export type AdmissionPlugin = OptionalPlugin;
export const ADMISSION_PLUGINS: readonly AdmissionPlugin[] = OPTIONAL_PLUGINS;

export interface KubeSim {
  /** http://127.0.0.1:<port>: for plain clients (send `Authorization: Bearer <token>`). */
  url: string;
  /** https://127.0.0.1:<port> (same port; what the kubeconfigs use, with the CA in them). */
  httpsUrl: string;
  /** The CA certificate (PEM) that signed the server certificate. */
  caCert: string;
  port: number;
  /** The kubeconfig written for the default identity (admin). */
  kubeconfigPath: string;
  /** Bearer token per identity. */
  tokens: Record<string, string>;
  /** Writes (once) and returns the path of a kubeconfig for that identity. */
  kubeconfigFor(identity: string): string;
  /** The kubeconfig text for an identity (for KubeConfig.loadFromString). */
  kubeconfigYaml(identity?: string): string;
  faults: Faults;
  audit: Audit;
  cluster: ClusterAccess;
  /** The in-process controllers (undefined with `controllers: false`): `configure({ failFraction })` at run time. */
  controllers: Controllers | undefined;
  /** Current resourceVersion of the store. */
  resourceVersion(): number;
  /**
   * Ends every watch and connection and listens again on the same port; the store is kept (etcd intact). The
   * watch cache starts afresh, as a restarted kube-apiserver's: resuming a watch from a resourceVersion before
   * the restart gets 410 Gone (reads at older resourceVersions still work). With `{ compactHistory: true }`
   * the event history is lost too (as an etcd compaction): those reads get 410 as well.
   */
  restart(opts?: { compactHistory?: boolean }): Promise<void>;
  /** Refuses connections until resume(). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

const CORE_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The store (restored from the data dir's snapshot, if any), its resource types and API, with the core namespaces. */
function openStore(
  options: KubeSimOptions,
  saved: Saved | undefined,
): { store: Store; registry: Registry; api: Api } {
  const store = new Store(options.historyLimit ?? 20000);
  const registry = new Registry();
  if (saved) restoreObjects(saved, store, registry, join(options.dataDir as string, SNAPSHOT_FILE));
  const api = new Api(store, registry, admissionChain({ store, registry }, options.admissionPlugins));
  const nsType = registry.lookup('', 'v1', 'namespaces') as ResourceType;
  for (const ns of CORE_NAMESPACES) {
    if (!store.get('namespaces', undefined, ns)) api.create(nsType, undefined, { metadata: { name: ns } });
  }
  return { store, registry, api };
}

/** The identities and their tokens: saved tokens keep the kubeconfigs handed out valid; a token given in the options wins. */
function authFor(options: KubeSimOptions, saved: Saved | undefined): Auth {
  const auth = new Auth(
    saved ? { ...options.auth, tokens: { ...saved.tokens, ...options.auth?.tokens } } : options.auth,
  );
  for (const [token, user] of Object.entries(saved?.serviceAccountTokens ?? {})) {
    auth.restoreServiceAccountToken(token, user);
  }
  const unknownIdentity = Object.keys(options.kubeconfigFiles ?? {}).find((id) => !(id in auth.tokens));
  if (unknownIdentity !== undefined) {
    throw new Error(
      `kube-sim: no identity "${unknownIdentity}" to write a kubeconfig for (identities: ${Object.keys(auth.tokens).join(', ')})`,
    );
  }
  return auth;
}

/** The kubeconfigs the options ask for: the main identity's, one per identity in a directory, named files. */
function writeKubeconfigs(options: KubeSimOptions, kubeconfigs: Kubeconfigs, mainIdentity: string): string {
  const kubeconfigPath = kubeconfigs.write(mainIdentity, options.kubeconfigPath);
  kubeconfigs.remember(mainIdentity, kubeconfigPath);
  if (options.kubeconfigDir) kubeconfigs.writeDir(options.kubeconfigDir);
  for (const [id, file] of Object.entries(options.kubeconfigFiles ?? {})) kubeconfigs.write(id, file);
  return kubeconfigPath;
}

interface Parts {
  store: Store;
  api: Api;
  hub: WatchHub;
  server: KubeServer;
  faults: Faults;
  audit: Audit;
  cluster: Cluster;
  crdFinalizer: CrdFinalizer;
  kubernetesService: KubernetesService;
  dataDir: DataDirWriter | undefined;
}

/** The in-process controllers, unless turned off; the server's control API configures them. */
async function startControllersOf(options: KubeSimOptions, p: Parts): Promise<Controllers | undefined> {
  let controllers: Controllers | undefined;
  if (options.controllers !== false) {
    try {
      controllers = startControllers(p.cluster, options.controllerOptions ?? {});
    } catch (e) {
      p.dataDir?.close();
      await p.server.stopListening();
      throw e;
    }
    p.api.namespaceController = options.controllerOptions?.namespaceController !== false;
  }
  p.server.deps.configureControllers = controllers
    ? (changes) => {
        controllers?.configure(changes);
        return controllers?.options() ?? {};
      }
    : undefined;
  return controllers;
}

/** The servers, stores and watch hub of one kube-sim, listening. */
async function startParts(
  options: KubeSimOptions,
  saved: Saved | undefined,
): Promise<Parts & { auth: Auth; tls: TlsIdentity }> {
  const { store, registry, api } = openStore(options, saved);
  const faults = new Faults(options.faults);
  faults.setHistoryLimit = (n) => store.setHistoryLimit(n);
  faults.compactHistory = () => store.compact();
  const audit = new Audit(options.auditLog ? { file: options.auditLog } : {});
  const auth = authFor(options, saved);
  const tls = saved?.tls ?? processTlsIdentity();
  // Before the watch hub: the writer must see each commit before a watch shows its resourceVersion.
  const dataDir = options.dataDir
    ? new DataDirWriter({
        dir: options.dataDir,
        store,
        auth,
        tls,
        ...(options.snapshotIntervalMs !== undefined ? { intervalMs: options.snapshotIntervalMs } : {}),
      })
    : undefined;
  // The identity is on disk before any kubeconfig that trusts it is written.
  dataDir?.flush();
  const hub = new WatchHub(store, faults, options.bookmarkIntervalMs);
  faults.stallWatches = () => hub.stallAll();
  const server = new KubeServer({
    tls,
    api,
    registry,
    hub,
    auth,
    audit,
    faults,
    aggregatedDiscovery: options.aggregatedDiscovery ?? true,
  });
  await server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  const cluster = new Cluster(api);
  // Part of the API server (apiextensions-apiserver), not of the controller manager: it runs without them.
  const crdFinalizer = startCrdFinalizer(cluster, (err, context) =>
    process.stderr.write(`kube-sim: ${context}: ${err instanceof Error ? err.message : String(err)}\n`),
  );
  // Also kube-apiserver's own: the Service and endpoints that point clients in the cluster at it.
  const kubernetesService = startKubernetesService(
    cluster,
    { ip: advertisedAddress(options.host), port: Number(new URL(server.url).port) },
    (err) =>
      process.stderr.write(
        `kube-sim: default/kubernetes: ${err instanceof Error ? err.message : String(err)}\n`,
      ),
  );
  return {
    store,
    api,
    hub,
    server,
    faults,
    audit,
    cluster,
    crdFinalizer,
    kubernetesService,
    dataDir,
    auth,
    tls,
  };
}

export async function startKubeSim(options: KubeSimOptions = {}): Promise<KubeSim> {
  const saved = options.dataDir ? loadDataDir(options.dataDir) : undefined;
  const p = await startParts(options, saved);
  const { server, hub, store, auth, tls } = p;
  const mainIdentity = options.kubeconfigIdentity ?? 'admin';
  const kubeconfigs = new Kubeconfigs(options.advertiseUrl ?? server.httpsUrl, auth.tokens, tls.caCert);
  const kubeconfigPath = writeKubeconfigs(options, kubeconfigs, mainIdentity);
  const controllers = await startControllersOf(options, p);
  let closed = false;
  return {
    url: server.url,
    httpsUrl: server.httpsUrl,
    caCert: tls.caCert,
    port: Number(new URL(server.url).port),
    kubeconfigPath,
    tokens: auth.tokens,
    kubeconfigFor: (identity: string) => kubeconfigs.pathFor(identity),
    kubeconfigYaml: (identity = mainIdentity) => kubeconfigs.yaml(identity),
    faults: p.faults,
    audit: p.audit,
    cluster: p.cluster,
    controllers,
    resourceVersion: () => store.resourceVersion,
    async restart(opts: { compactHistory?: boolean } = {}): Promise<void> {
      await server.stopListening();
      hub.restartCache();
      if (opts.compactHistory) store.compact();
      await server.relisten();
    },
    pause: () => server.stopListening(),
    resume: () => server.relisten(),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      controllers?.stop();
      p.crdFinalizer.stop();
      p.kubernetesService.stop();
      p.cluster.close();
      hub.stop();
      await server.stopListening();
      p.dataDir?.close();
      await p.audit.close();
      kubeconfigs.close();
    },
  };
}
