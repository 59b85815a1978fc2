// The kubelet lifecycle (the default): the status writes a watcher of a real cluster sees, one after
// another, and the pace that spreads them (relist ticks per node, one status write at a time per node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KubeObject, StoreEvent } from '../apimachinery/types.ts';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startControllers, type ControllerOptions } from './index.ts';
import { KubeletPace } from './kubelet-pace.ts';
import { nextRelistAt, readinessDelayOf } from './pod-fate.ts';

interface Seen {
  nodeName?: string;
  phase?: string;
  podIP?: string;
  hostIP?: string;
  ready?: string;
  containersReady?: string;
  sandbox?: string;
  initialized?: string;
  waiting?: string;
  running: boolean;
  started?: boolean;
}

function seen(pod: KubeObject): Seen {
  const status = (pod.status ?? {}) as JsonObject;
  const conditions = (status.conditions ?? []) as { type: string; status: string }[];
  const cond = (type: string) => conditions.find((c) => c.type === type)?.status;
  const container = ((status.containerStatuses ?? []) as JsonObject[])[0] as
    { state: { waiting?: { reason: string }; running?: unknown }; started: boolean } | undefined;
  const out: Seen = { running: container?.state.running !== undefined };
  const set = <K extends keyof Seen>(k: K, v: Seen[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('nodeName', (pod.spec as { nodeName?: string }).nodeName);
  set('phase', status.phase as string | undefined);
  set('podIP', status.podIP as string | undefined);
  set('hostIP', status.hostIP as string | undefined);
  set('ready', cond('Ready'));
  set('containersReady', cond('ContainersReady'));
  set('sandbox', cond('PodReadyToStartContainers'));
  set('initialized', cond('Initialized'));
  set('waiting', container?.state.waiting?.reason);
  set('started', container?.started);
  return out;
}

/** Every event of pod `name`, as what a watcher sees of it, until `done` holds for the last. */
async function sequence(
  options: ControllerOptions,
  pod: KubeObject,
  done: (s: Seen) => boolean,
): Promise<Seen[]> {
  const cluster = new FakeCluster();
  const events: Seen[] = [];
  const unsubscribe = cluster.subscribe((e: StoreEvent) => {
    if (e.resource === 'pods' && e.object.metadata.name === pod.metadata.name) events.push(seen(e.object));
  });
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 5,
    schedulerBindMs: 1,
    kubeletRelistMs: 10,
    kubeletStatusWriteMs: 1,
    podEvents: false,
    onError: (err) => errors.push(String(err)),
    ...options,
  });
  try {
    cluster.create('pods', pod);
    await until(() => (events.length > 0 && done(events.at(-1)!) ? true : undefined));
  } finally {
    controllers.stop();
    unsubscribe();
  }
  assert.deepEqual(errors, []);
  return events;
}

const podOf = (name: string, container: Record<string, unknown> = {}): KubeObject =>
  obj('v1', 'Pod', name, 'default', {
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...container }] } as never,
  });

test('kubelet lifecycle: created, bound, Pending in ContainerCreating, then Running and Ready in one write', async () => {
  const events = await sequence({}, podOf('p'), (s) => s.ready === 'True');
  assert.equal(events.length, 4, JSON.stringify(events));
  const [created, bound, accepted, running] = events as [Seen, Seen, Seen, Seen];
  assert.equal(created.nodeName, undefined);
  assert.match(String(bound.nodeName), /^sim-node-/);
  assert.equal(bound.phase, created.phase); // the binding writes no kubelet status
  assert.deepEqual(
    { ...accepted, hostIP: accepted.hostIP !== undefined },
    {
      nodeName: bound.nodeName,
      phase: 'Pending',
      hostIP: true,
      ready: 'False',
      containersReady: 'False',
      sandbox: 'False',
      initialized: 'True',
      waiting: 'ContainerCreating',
      running: false,
      started: false,
    },
  );
  assert.equal(accepted.podIP, undefined, 'no podIP before the sandbox exists');
  assert.equal(running.phase, 'Running');
  assert.match(String(running.podIP), /^10\./);
  assert.deepEqual(
    [running.ready, running.containersReady, running.sandbox, running.running, running.started],
    ['True', 'True', 'True', true, true],
  );
});

test('kubelet lifecycle: a readinessProbe makes Running (not ready) and Ready two writes', async () => {
  const probe = { readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 0 } };
  const events = await sequence({}, podOf('probed', probe), (s) => s.ready === 'True');
  const phases = events.map((e) => `${e.phase ?? '-'}/${e.ready ?? '-'}`);
  assert.deepEqual(phases.slice(2), ['Pending/False', 'Running/False', 'Running/True']);
  const runningNotReady = events[3]!;
  assert.equal(runningNotReady.started, true);
  assert.equal(runningNotReady.containersReady, 'False');
});

test('fast lifecycle: Pending right after binding, then Running and Ready', async () => {
  const events = await sequence({ podLifecycle: 'fast' }, podOf('f'), (s) => s.ready === 'True');
  assert.deepEqual(events.map((e) => `${e.phase ?? '-'}/${e.ready ?? '-'}`).slice(-2), [
    'Pending/False',
    'Running/True',
  ]);
});

test('podLifecycle: true and false are kept as kubelet and off; the default is kubelet', () => {
  const cluster = new FakeCluster();
  for (const [given, mode] of [
    [undefined, 'kubelet'],
    [true, 'kubelet'],
    [false, 'off'],
    ['fast', 'fast'],
  ] as const) {
    const c = startControllers(cluster, {
      nodes: 0,
      ...(given !== undefined ? { podLifecycle: given } : {}),
    });
    assert.equal(c.options().podLifecycle, mode);
    c.stop();
  }
  assert.throws(() => startControllers(cluster, { podLifecycle: 'slow' as never }), /kubelet, fast, off/);
});

test("a node's status manager writes one status at a time; another node's queue is its own", () => {
  const pace = new KubeletPace(
    { schedulerBindMs: 10, kubeletRelistMs: 1000, kubeletStatusWriteMs: 40 },
    () => 0.5,
  );
  assert.deepEqual(
    [0, 0, 0, 100].map((now) => pace.reserveStatusWrite('a', now)),
    [0, 40, 80, 120],
  );
  assert.equal(pace.reserveStatusWrite('b', 0), 0);
  assert.equal(pace.reserveStatusWrite('a', 500), 500, 'an idle queue writes at once');
});

test('the scheduler binds one pod at a time, in the order they came', () => {
  const pace = new KubeletPace(
    { schedulerBindMs: 10, kubeletRelistMs: 1000, kubeletStatusWriteMs: 40 },
    () => 0.5,
  );
  assert.deepEqual(
    [0, 0, 0, 5, 100].map((now) => pace.reserveBinding(now)),
    [0, 10, 20, 30, 100],
  );
});

test("a container start is noticed at its node's next relist; nodes relist on their own phases", () => {
  assert.equal(nextRelistAt(1000, 250, 1000), 1250);
  assert.equal(nextRelistAt(1250, 250, 1000), 1250);
  assert.equal(nextRelistAt(1251, 250, 1000), 2250);
  assert.equal(nextRelistAt(1234, 250, 0), 1234, 'no relist period: noticed at once');
  const draws = [0.1, 0.7];
  const pace = new KubeletPace({ schedulerBindMs: 0, kubeletRelistMs: 1000, kubeletStatusWriteMs: 0 }, () =>
    draws.shift()!,
  );
  const a = pace.noticed('a', 10_000);
  const b = pace.noticed('b', 10_000);
  assert.ok(a >= 10_000 && a < 11_000 && b >= 10_000 && b < 11_000);
  assert.notEqual(a, b);
  assert.equal(pace.noticed('a', 10_001), a, 'the same tick for starts before it');
});

test('readinessDelayOf: undefined without a readinessProbe, else the largest initialDelaySeconds', () => {
  assert.equal(readinessDelayOf(podOf('a')), undefined);
  const pod = obj('v1', 'Pod', 'b', 'default', {
    metadata: { name: 'b', namespace: 'default' },
    spec: {
      containers: [
        { name: 'x', readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 2 } },
        { name: 'y', readinessProbe: { exec: { command: ['true'] } } },
        { name: 'z' },
      ],
    } as never,
  });
  assert.equal(readinessDelayOf(pod), 2000);
});
