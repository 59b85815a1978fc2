// What the tests of the dashboard's server share: a stand-in for the API (two PodSets, web's Warning Event and
// pods, the watcher's Lease), a real Redis per file seeded with one failed reconcile of default/web and the
// watcher's event log, and dashboards started on it.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  KubeApiError,
  type CoreEvent,
  type Kube,
  type Lease,
  type ListOptions,
  type Pod,
  type PodSet,
} from '@podset/kube';
import { EventLog } from '@podset/event-log';
import { ReconcileQueue, startReconcileWorker } from '@podset/queue';
import { urlConnector } from '@podset/redis';
import { useRedis } from '@podset/testkit';
import { silentLogger } from '@podset/log';
import type { Credentials } from '../src/config.ts';
import { startDashboard, type DashboardSettings, type RunningDashboard } from '../src/server.ts';

export const TOKEN = 'test-token-0123456789abcdef';
export const bearer = { authorization: `Bearer ${TOKEN}` };
const podSet: PodSet = {
  apiVersion: 'podset.io/v1',
  kind: 'PodSet',
  metadata: { name: 'web', namespace: 'default', generation: 2, uid: 'uid-web' },
  spec: { replicas: 3 },
  status: {
    replicas: 2,
    readyReplicas: 1,
    observedGeneration: 2,
    conditions: [
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: 'exceeded quota',
        lastTransitionTime: new Date().toISOString(),
      },
    ],
  },
};
const other: PodSet = {
  ...podSet,
  metadata: { name: 'api', namespace: 'shop', generation: 1 },
  status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 },
};
const warning: CoreEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.1', namespace: 'default' },
  involvedObject: { kind: 'PodSet', name: 'web', namespace: 'default', uid: 'uid-web' },
  type: 'Warning',
  reason: 'FailedCreate',
  message: 'pods "web-x" is forbidden: exceeded quota <b>',
  count: 2,
  lastTimestamp: new Date().toISOString(),
};
/** web's own pod, and one that carries its label without being its own (released to debug it). */
const webPods: Pod[] = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-abc12',
      namespace: 'default',
      labels: { 'podset.io/name': 'web', 'podset.io/template-hash': 'h1' },
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'uid-web', controller: true },
      ],
    },
    spec: { nodeName: 'node-7' },
    status: { phase: 'Pending' },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-debug', namespace: 'default', labels: { 'podset.io/name': 'web' } },
    status: { phase: 'Running' },
  },
];
export const eventQueries: { namespace: string | undefined; fieldSelector: string | undefined }[] = [];
const notFound = (path: string) =>
  new KubeApiError({ code: 404, reason: 'NotFound', message: 'not found', verb: 'get', path });
const fakeKube = {
  client: { server: 'fake' },
  podSets: {
    list: () => Promise.resolve({ items: [podSet, other], metadata: {} }),
    listAll: () => Promise.resolve({ items: [podSet, other], metadata: {} }),
    get: (ns: string, name: string) =>
      ns === 'default' && name === 'web'
        ? Promise.resolve(podSet)
        : Promise.reject(notFound(`${ns}/${name}`)),
  },
  pods: {
    listAll: (namespace: string | undefined, opts: ListOptions) =>
      Promise.resolve({
        items: namespace === 'default' && opts.labelSelector === 'podset.io/name=web' ? webPods : [],
        metadata: {},
      }),
  },
  events: {
    list: (namespace: string | undefined, opts: ListOptions) => {
      eventQueries.push({ namespace, fieldSelector: opts.fieldSelector });
      return Promise.resolve({ items: namespace === 'default' ? [warning] : [], metadata: {} });
    },
  },
  leases: {
    get: (ns: string, name: string): Promise<Lease> =>
      ns === 'podset-system' && name === 'podset-watcher'
        ? Promise.resolve({
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace: ns },
            spec: {
              holderIdentity: 'watcher-7',
              leaseDurationSeconds: 3600,
              renewTime: new Date().toISOString(),
              leaseTransitions: 2,
            },
          })
        : Promise.reject(notFound(`${ns}/${name}`)),
  },
} as unknown as Kube;

export const html = { ...bearer, accept: 'text/html' };

/** One reconcile of default/web that fails for good (a single attempt); its job id. */
async function failOneReconcile(redisUrl: string): Promise<string> {
  const queue = new ReconcileQueue({ connection: redisUrl, attempts: 1 });
  const worker = startReconcileWorker({
    connection: redisUrl,
    concurrency: 1,
    attempts: 1,
    handler: () => Promise.reject(new Error('pods "web-x" is forbidden: exceeded quota')),
  });
  try {
    const r = await queue.request('default/web', { source: 'live', reason: 'test' });
    for (let i = 0; (await queue.queue.getJobCounts('failed')).failed !== 1; i++) {
      assert.ok(i < 400, 'the job failed');
      await new Promise((res) => setTimeout(res, 25));
    }
    return r.jobId;
  } finally {
    await worker.close();
    await queue.close();
  }
}

/** The watcher's record of the PodSet's pods, in the event log the dashboard reads. */
async function recordWatchEvents(redisUrl: string): Promise<void> {
  const client = urlConnector(redisUrl).client();
  try {
    const log = new EventLog({ redis: client, key: 'podset:podset-reconcile:watcher:events' });
    await log.append({
      t: new Date().toISOString(),
      type: 'ADDED',
      kind: 'Pod',
      key: 'default/web',
      name: 'web-abc12',
      rv: '17',
      phase: 'Pending',
    });
    // The rest as the watcher appends a batch (one stream entry per run of one key's records).
    const t = new Date().toISOString();
    // Filed under web's key by their label, but not web's own pods: one its generateName could not
    // have named, one the pod list shows it does not control.
    await log.appendMany([
      {
        t,
        type: 'ADDED',
        kind: 'Pod',
        key: 'default/web',
        name: 'hand-made',
        rv: '16',
      },
      {
        t,
        type: 'MODIFIED',
        kind: 'Pod',
        key: 'default/web',
        name: 'web-debug',
        rv: '19',
        phase: 'Running',
      },
      // Entries that name the pod's controlling PodSet (owner): that decides, whatever the name. A stray
      // pod named like web's own, deleted (so no pod list shows it), and a pod of an earlier PodSet web.
      {
        t,
        type: 'DELETED',
        kind: 'Pod',
        key: 'default/web',
        name: 'web-xyz',
        rv: '20',
        owner: '',
      },
      {
        t,
        type: 'MODIFIED',
        kind: 'Pod',
        key: 'default/web',
        name: 'web-old11',
        rv: '21',
        owner: 'uid-web-earlier',
      },
      {
        t,
        type: 'MODIFIED',
        kind: 'Pod',
        key: 'default/web',
        name: 'web-abc12',
        rv: '22',
        phase: 'Running',
        owner: 'uid-web',
      },
      {
        t,
        type: 'ADDED',
        kind: 'Pod',
        key: 'shop/api',
        name: 'api-zz',
        rv: '18',
      },
    ]);
  } finally {
    client.disconnect();
  }
}

/** The settings every dashboard these tests start shares: this Redis, free ports, small scans, read-only. */
export function dashboardSettings(redisUrl: string): DashboardSettings {
  return {
    kubeConfig: {} as KubeConfig,
    redisUrl,
    queueName: 'podset-reconcile',
    queuePrefix: 'podset',
    eventLogKeys: ['podset:podset-reconcile:watcher:events'],
    port: 0,
    host: '127.0.0.1',
    credentials: { token: TOKEN },
    readOnly: true,
    secureCookie: false,
    sessionMaxAgeSeconds: 3600,
    eventsPerPodSet: 5,
    eventLogScan: 100,
    jobScan: 100,
    httpPort: 0,
    kubeQps: 5,
    kubeBurst: 10,
  };
}

export interface DashboardServer {
  /**
   * The id of the failed reconcile job, once the seed has made it. A file's own top-level before() awaits it:
   * Node starts the top-level hooks of a file together rather than one after another.
   */
  readonly failedJobId: Promise<string>;
  /** Starts a dashboard on the file's Redis; closed after the file's tests. */
  dashboard(
    readOnly: boolean,
    credentials?: Credentials,
    session?: { secureCookie: boolean; sessionMaxAgeSeconds: number },
  ): Promise<RunningDashboard>;
  /** The failed job's state now. */
  jobState(): Promise<string>;
}

/** Registers the file's hooks: a Redis started and seeded before its tests, its dashboards closed after. */
export function useDashboardServer(): DashboardServer {
  const redis = useRedis();
  const dashboards: RunningDashboard[] = [];
  let seed: { resolve(jobId: string): void; reject(err: unknown): void } | undefined;
  const seeded = new Promise<string>((resolve, reject) => (seed = { resolve, reject }));
  seeded.catch(() => undefined);
  before(async () => {
    try {
      await redis.ready;
      const jobId = await failOneReconcile(redis.url);
      await recordWatchEvents(redis.url);
      seed?.resolve(jobId);
    } catch (err) {
      seed?.reject(err);
      throw err;
    }
  });
  after(async () => {
    for (const d of dashboards) await d.close();
  });
  return {
    failedJobId: seeded,
    async dashboard(
      readOnly: boolean,
      credentials: Credentials = { token: TOKEN },
      session: { secureCookie: boolean; sessionMaxAgeSeconds: number } = {
        secureCookie: false,
        sessionMaxAgeSeconds: 3600,
      },
    ): Promise<RunningDashboard> {
      const d = await startDashboard(
        {
          ...dashboardSettings(redis.url),
          credentials,
          readOnly,
          ...session,
          lease: { namespace: 'podset-system', name: 'podset-watcher' },
        },
        { log: silentLogger, kube: fakeKube },
      );
      dashboards.push(d);
      return d;
    },
    async jobState(): Promise<string> {
      const queue = new ReconcileQueue({ connection: redis.url });
      try {
        return await queue.queue.getJobState(await seeded);
      } finally {
        await queue.close();
      }
    },
  };
}
