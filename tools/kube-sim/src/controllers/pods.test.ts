import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type ClusterAccess, type KubeObject } from '../apimachinery/types.ts';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startControllers, type ControllerOptions } from './index.ts';
import { ensureNodes } from './nodes.ts';
import { EXIT_DELAY_ANNOTATION, FATE_ANNOTATION, STARTUP_DELAY_ANNOTATION, qosClass } from './pods.ts';

interface PodStatus {
  phase?: string;
  podIP?: string;
  hostIP?: string;
  startTime?: string;
  qosClass?: string;
  conditions?: { type: string; status: string; reason?: string }[];
  containerStatuses?: {
    name: string;
    ready: boolean;
    started: boolean;
    image: string;
    imageID: string;
    containerID?: string;
    restartCount?: number;
    state: {
      waiting?: { reason: string; message?: string };
      running?: { startedAt: string };
      terminated?: { exitCode: number; reason?: string };
    };
    lastState?: { terminated?: { exitCode: number; reason?: string } };
  }[];
}

function status(pod: KubeObject | undefined): PodStatus {
  return (pod?.status ?? {}) as PodStatus;
}
function cond(pod: KubeObject | undefined, type: string): string | undefined {
  return status(pod).conditions?.find((c) => c.type === type)?.status;
}

function pod(
  name: string,
  annotations: Record<string, string> = {},
  spec: Record<string, unknown> = {},
): KubeObject {
  return obj('v1', 'Pod', name, 'default', {
    metadata: { name, namespace: 'default', annotations },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec } as never,
  });
}

/** The fast lifecycle: these tests pin its two-step shape (pods-kubelet.test.ts has the kubelet's). */
function start(cluster: ClusterAccess, options: ControllerOptions = {}) {
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    podLifecycle: 'fast',
    startupDelayMs: 0,
    startupJitterMs: 5,
    containerExitMs: 20,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
    ...options,
  });
  return { controllers, errors };
}

test('a new pod is scheduled, Pending with ContainerCreating, then Running and Ready', async (t) => {
  const cluster = new FakeCluster();
  const { controllers, errors } = start(cluster);
  t.after(() => controllers.stop());
  cluster.create('pods', pod('slow', { [STARTUP_DELAY_ANNOTATION]: '600000' }));
  cluster.create('pods', pod('fast'));

  const slow = await until(() => {
    const p = cluster.get('pods', 'default', 'slow');
    return status(p).containerStatuses ? p : undefined;
  });
  assert.match(String((slow.spec as { nodeName?: string }).nodeName), /^sim-node-[123]$/);
  assert.equal(status(slow).phase, 'Pending');
  assert.equal(cond(slow, 'PodScheduled'), 'True');
  assert.equal(cond(slow, 'Ready'), 'False');
  assert.equal(status(slow).containerStatuses?.[0]?.state.waiting?.reason, 'ContainerCreating');
  assert.ok(status(slow).hostIP);
  assert.ok(status(slow).startTime);
  assert.equal(status(slow).qosClass, 'BestEffort');

  const fast = await until(() => {
    const p = cluster.get('pods', 'default', 'fast');
    return status(p).phase === 'Running' ? p : undefined;
  });
  const s = status(fast);
  assert.match(String(s.podIP), /^10\.\d+\.\d+\.\d+$/);
  for (const c of ['Initialized', 'ContainersReady', 'Ready', 'PodScheduled', 'PodReadyToStartContainers']) {
    assert.equal(cond(fast, c), 'True', c);
  }
  const cs = s.containerStatuses?.[0];
  assert.equal(cs?.ready, true);
  assert.equal(cs?.started, true);
  assert.ok(cs?.state.running?.startedAt);
  assert.equal(cs?.image, 'docker.io/library/nginx:1.27');
  assert.match(String(cs?.imageID), /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
  assert.match(String(cs?.containerID), /^containerd:\/\/[0-9a-f]{64}$/);
  assert.equal(status(cluster.get('pods', 'default', 'slow')).phase, 'Pending');
  assert.deepEqual(errors, []);
});

test('pods are spread evenly over the Ready nodes', async (t) => {
  const cluster = new FakeCluster();
  const { controllers } = start(cluster);
  t.after(() => controllers.stop());
  for (let i = 0; i < 12; i++) cluster.create('pods', pod(`p${i}`));
  await until(() => cluster.list('pods').every((p) => status(p).phase === 'Running'));
  const perNode = new Map<string, number>();
  for (const p of cluster.list('pods')) {
    const n = (p.spec as { nodeName: string }).nodeName;
    perNode.set(n, (perNode.get(n) ?? 0) + 1);
  }
  assert.deepEqual([...perNode.values()], [4, 4, 4]);
  const ips = new Set(cluster.list('pods').map((p) => status(p).podIP));
  assert.equal(ips.size, 12, 'every pod has its own IP');
});

test('failFraction 1 makes pods that are not restarted Failed; neverReadyFraction 1 keeps them Running but not Ready', async (t) => {
  const failing = new FakeCluster();
  const a = start(failing, { failFraction: 1 });
  t.after(() => a.controllers.stop());
  failing.create('pods', pod('f', {}, { restartPolicy: 'Never' }));
  const f = await until(() => {
    const p = failing.get('pods', 'default', 'f');
    return status(p).phase === 'Failed' ? p : undefined;
  });
  assert.equal(cond(f, 'Ready'), 'False');
  assert.equal(status(f).containerStatuses?.[0]?.state.terminated?.exitCode, 1);

  const lazy = new FakeCluster();
  const b = start(lazy, { neverReadyFraction: 1 });
  t.after(() => b.controllers.stop());
  lazy.create('pods', pod('n'));
  const n = await until(() => {
    const p = lazy.get('pods', 'default', 'n');
    return status(p).phase === 'Running' ? p : undefined;
  });
  assert.equal(cond(n, 'Ready'), 'False');
  assert.equal(cond(n, 'ContainersReady'), 'False');
  assert.equal(status(n).containerStatuses?.[0]?.started, true);
  assert.equal(status(n).containerStatuses?.[0]?.ready, false);
});

test('the fate annotation pins a pod: fail, never-ready, succeed, ready', async (t) => {
  const cluster = new FakeCluster();
  const { controllers } = start(cluster, { failFraction: 0.5, neverReadyFraction: 0.5, succeedAfterMs: 10 });
  t.after(() => controllers.stop());
  for (const fate of ['fail', 'never-ready', 'succeed', 'ready'])
    cluster.create(
      'pods',
      // A failing pod ends Failed only when it is not restarted (crash loops are tested below).
      pod(fate, { [FATE_ANNOTATION]: fate }, fate === 'fail' ? { restartPolicy: 'Never' } : {}),
    );
  const phase = (name: string) => status(cluster.get('pods', 'default', name)).phase;
  await until(
    () => phase('fail') === 'Failed' && phase('succeed') === 'Succeeded' && phase('ready') === 'Running',
  );
  await until(() => phase('never-ready') === 'Running');
  assert.equal(cond(cluster.get('pods', 'default', 'ready'), 'Ready'), 'True');
  assert.equal(cond(cluster.get('pods', 'default', 'never-ready'), 'Ready'), 'False');
  const succeeded = status(cluster.get('pods', 'default', 'succeed'));
  assert.equal(succeeded.containerStatuses?.[0]?.state.terminated?.exitCode, 0);
});

test('a failing pod that is restarted crash-loops: Running, not ready, restarts after a doubling back-off', async (t) => {
  const cluster = new FakeCluster();
  const { controllers, errors } = start(cluster, { crashLoopBackoffMs: 20 });
  t.after(() => controllers.stop());
  const seen = new Map<string, PodStatus[]>();
  const unsubscribe = cluster.subscribe((e) => {
    if (e.resource !== 'pods' || e.type === 'DELETED') return;
    const list = seen.get(e.object.metadata.name ?? '') ?? [];
    list.push(status(e.object));
    seen.set(e.object.metadata.name ?? '', list);
  });
  t.after(unsubscribe);
  for (const policy of ['Always', 'OnFailure'])
    cluster.create('pods', pod(policy, { [FATE_ANNOTATION]: 'fail' }, { restartPolicy: policy }));
  for (const policy of ['Always', 'OnFailure']) {
    await until(
      () => (status(cluster.get('pods', 'default', policy)).containerStatuses?.[0]?.restartCount ?? 0) >= 4,
      10_000,
      `${policy}: four restarts`,
    );
    const history = seen.get(policy) ?? [];
    assert.ok(
      history.every((s) => s.phase !== 'Failed'),
      'never Failed',
    );
    const cs = (s: PodStatus) => s.containerStatuses?.[0];
    // The first crash shows the exit itself; each restart after it waits out a back-off twice the last.
    const first = history.find((s) => cs(s)?.state.terminated);
    assert.equal(first?.phase, 'Running');
    assert.deepEqual(cs(first!)?.state.terminated?.reason, 'Error');
    const waits = history.filter((s) => cs(s)?.state.waiting?.reason === 'CrashLoopBackOff');
    assert.deepEqual(
      waits.slice(0, 3).map((s) => [cs(s)?.restartCount, cs(s)?.state.waiting?.message?.split(' ')[1]]),
      [
        [1, '20ms'],
        [2, '40ms'],
        [3, '80ms'],
      ],
    );
    const last = status(cluster.get('pods', 'default', policy));
    assert.equal(last.phase, 'Running');
    assert.equal(cond(cluster.get('pods', 'default', policy), 'Ready'), 'False');
    assert.equal(cs(last)?.ready, false);
    assert.deepEqual(cs(last)?.lastState?.terminated, {
      ...cs(last)?.lastState?.terminated,
      exitCode: 1,
      reason: 'Error',
    });
    assert.match(
      cs(last)?.state.waiting?.message ?? '',
      new RegExp(`^back-off \\d+ms restarting failed container=app pod=${policy}_default\\(`),
    );
  }
  assert.deepEqual(errors, []);
});

test('a seed makes the random fates repeatable', async () => {
  async function run(seed: number): Promise<string[]> {
    const cluster = new FakeCluster();
    const { controllers } = start(cluster, { seed, failFraction: 0.4, neverReadyFraction: 0.3 });
    try {
      for (let i = 0; i < 24; i++) cluster.create('pods', pod(`p${i}`));
      // Started: Failed (not restarted), or Running with an IP (ready, never ready, or crash-looping).
      const settled = (p: KubeObject) =>
        status(p).phase === 'Failed' || (status(p).phase === 'Running' && status(p).podIP !== undefined);
      await until(() => cluster.list('pods').every(settled));
      return Array.from({ length: 24 }, (_, i) => {
        const p = cluster.get('pods', 'default', `p${i}`);
        return `${status(p).phase}/${cond(p, 'Ready')}`;
      });
    } finally {
      controllers.stop();
    }
  }
  const first = await run(42);
  assert.deepEqual(await run(42), first);
  assert.ok(new Set(first).size >= 2, `mixed outcomes expected, got ${first.join(',')}`);
});

test('deleting a pod: Terminating, then removed once its containers exit', async (t) => {
  const cluster = new FakeCluster();
  const { controllers, errors } = start(cluster);
  t.after(() => controllers.stop());
  cluster.create('pods', pod('web'));
  await until(() => status(cluster.get('pods', 'default', 'web')).phase === 'Running');
  const left = cluster.delete('pods', 'default', 'web');
  assert.ok(left?.metadata.deletionTimestamp, 'the pod is kept while terminating (30 s grace)');
  assert.equal(left?.metadata.deletionGracePeriodSeconds, 30);
  await until(() => !cluster.get('pods', 'default', 'web'), 5000, 'pod removed');
  assert.deepEqual(errors, []);
});

test('a grace period shorter than the containers take to exit wins', async (t) => {
  const cluster = new FakeCluster();
  const { controllers } = start(cluster, { containerExitMs: 600_000 });
  t.after(() => controllers.stop());
  cluster.create('pods', pod('a'));
  cluster.create('pods', pod('b', { [EXIT_DELAY_ANNOTATION]: '0' }));
  await until(() => cluster.list('pods').every((p) => status(p).phase === 'Running'));
  cluster.delete('pods', 'default', 'a', { gracePeriodSeconds: 1 });
  cluster.delete('pods', 'default', 'b');
  await until(() => !cluster.get('pods', 'default', 'b'), 5000, 'pod b (exit-delay 0) removed');
  await until(() => !cluster.get('pods', 'default', 'a'), 10_000, 'pod a removed after its 1 s grace');
});

test('a second delete with a shorter grace period shortens the wait', async (t) => {
  const cluster = new FakeCluster();
  const { controllers } = start(cluster, { containerExitMs: 600_000 });
  t.after(() => controllers.stop());
  cluster.create('pods', pod('a'));
  await until(() => status(cluster.get('pods', 'default', 'a')).phase === 'Running');
  cluster.delete('pods', 'default', 'a', { gracePeriodSeconds: 600 });
  await until(() => cluster.get('pods', 'default', 'a')?.metadata.deletionTimestamp);
  cluster.delete('pods', 'default', 'a', { gracePeriodSeconds: 1 });
  await until(() => !cluster.get('pods', 'default', 'a'), 10_000, 'pod removed after the shorter grace');
});

test('a pod with a finalizer stays until the finalizer is removed', async (t) => {
  const cluster = new FakeCluster();
  const { controllers, errors } = start(cluster);
  t.after(() => controllers.stop());
  const p = pod('held');
  p.metadata.finalizers = ['example.com/hold'];
  cluster.create('pods', p);
  await until(() => status(cluster.get('pods', 'default', 'held')).phase === 'Running');
  cluster.delete('pods', 'default', 'held');
  const held = await until(() => {
    const x = cluster.get('pods', 'default', 'held');
    return x?.metadata.deletionGracePeriodSeconds === 0 ? x : undefined;
  });
  cluster.update('pods', { ...held, metadata: { ...held.metadata, finalizers: [] } });
  assert.equal(cluster.get('pods', 'default', 'held'), undefined);
  assert.deepEqual(errors, []);
});

test('a pod deleted before it starts is dropped quietly', async (t) => {
  const cluster = new FakeCluster();
  const { controllers, errors } = start(cluster, { startupDelayMs: 30, startupJitterMs: 0 });
  t.after(() => controllers.stop());
  cluster.create('pods', pod('gone'));
  await until(() => status(cluster.get('pods', 'default', 'gone')).containerStatuses);
  cluster.delete('pods', 'default', 'gone', { gracePeriodSeconds: 0 });
  assert.equal(cluster.get('pods', 'default', 'gone'), undefined);
  // A new pod of the same name must not be touched by the old pod's timers (uid check).
  cluster.create('pods', pod('gone', { [STARTUP_DELAY_ANNOTATION]: '600000' }));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(status(cluster.get('pods', 'default', 'gone')).phase, 'Pending');
  assert.deepEqual(errors, []);
});

test('a conflicting status write is retried on a fresh read', async (t) => {
  const cluster = new FakeCluster();
  let conflicts = 0;
  const flaky: ClusterAccess = {
    get: (r, ns, n) => cluster.get(r, ns, n),
    list: (r, ns) => cluster.list(r, ns),
    create: (r, o) => cluster.create(r, o),
    update: (r, o) => cluster.update(r, o),
    delete: (r, ns, n, o) => cluster.delete(r, ns, n, o),
    forceRemove: (r, ns, n) => cluster.forceRemove(r, ns, n),
    subscribe: (l) => cluster.subscribe(l),
    resourceTypes: () => cluster.resourceTypes(),
    bind: (ns, n, node) => cluster.bind(ns, n, node),
    updateStatus(resource: string, object: KubeObject): KubeObject {
      if (resource === 'pods' && conflicts < 3) {
        conflicts++;
        throw new ApiError(409, 'Conflict', 'injected');
      }
      return cluster.updateStatus(resource, object);
    },
  };
  const { controllers, errors } = start(flaky);
  t.after(() => controllers.stop());
  cluster.create('pods', pod('c'));
  await until(() => status(cluster.get('pods', 'default', 'c')).phase === 'Running');
  assert.equal(conflicts, 3);
  assert.deepEqual(errors, []);
});

test('without a schedulable node a pod stays Unschedulable until one appears', async (t) => {
  const cluster = new FakeCluster();
  const { controllers } = start(cluster, { nodes: 0 });
  t.after(() => controllers.stop());
  cluster.create('pods', pod('w'));
  const w = await until(() => {
    const p = cluster.get('pods', 'default', 'w');
    return status(p).conditions?.length ? p : undefined;
  });
  assert.equal(cond(w, 'PodScheduled'), 'False');
  assert.equal(status(w).conditions?.[0]?.reason, 'Unschedulable');
  ensureNodes(cluster, { count: 1, namePrefix: 'late-', kubeletVersion: 'v1.32.0' });
  const running = await until(() => {
    const p = cluster.get('pods', 'default', 'w');
    return status(p).phase === 'Running' ? p : undefined;
  });
  assert.equal((running.spec as { nodeName: string }).nodeName, 'late-1');
  assert.equal(cond(running, 'PodScheduled'), 'True');
});

test('stop() cancels the timers: a starting pod stays Pending', async () => {
  const cluster = new FakeCluster();
  const { controllers } = start(cluster, { startupDelayMs: 150, startupJitterMs: 0 });
  cluster.create('pods', pod('s'));
  await until(() => status(cluster.get('pods', 'default', 's')).containerStatuses);
  controllers.stop();
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(status(cluster.get('pods', 'default', 's')).phase, 'Pending');
});

test('restarted controllers adopt pods already scheduled but not started', async (t) => {
  const cluster = new FakeCluster();
  const first = start(cluster, { startupDelayMs: 600_000, startupJitterMs: 0 });
  cluster.create('pods', pod('r'));
  await until(() => status(cluster.get('pods', 'default', 'r')).containerStatuses);
  first.controllers.stop();
  const second = start(cluster);
  t.after(() => second.controllers.stop());
  await until(() => status(cluster.get('pods', 'default', 'r')).phase === 'Running');
});

test('qosClass', () => {
  const res = (requests?: Record<string, string>, limits?: Record<string, string>) =>
    pod('q', {}, { containers: [{ name: 'a', resources: { requests, limits } }] });
  assert.equal(qosClass(res()), 'BestEffort');
  assert.equal(qosClass(res({ cpu: '1' })), 'Burstable');
  assert.equal(qosClass(res(undefined, { cpu: '1', memory: '1Gi' })), 'Guaranteed');
  assert.equal(qosClass(res({ cpu: '500m' }, { cpu: '1', memory: '1Gi' })), 'Burstable');
});

test('podEvents records the scheduler and kubelet events (the default); podEvents false records none', async (t) => {
  const cluster = new FakeCluster();
  const { controllers, errors } = start(cluster);
  t.after(() => controllers.stop());
  const created = cluster.create('pods', pod('ev'));
  await until(() => status(cluster.get('pods', 'default', 'ev')).phase === 'Running');
  const reasons = () =>
    cluster
      .list('events', 'default')
      .filter((e) => (e.involvedObject as { uid: string }).uid === created.metadata.uid)
      .map((e) => e.reason);
  await until(() => reasons().length >= 4);
  assert.deepEqual(reasons(), ['Scheduled', 'Pulled', 'Created', 'Started']);
  const scheduled = cluster.list('events', 'default').find((e) => e.reason === 'Scheduled');
  assert.match(String(scheduled?.message), /^Successfully assigned default\/ev to sim-node-\d$/);
  assert.deepEqual(scheduled?.source, { component: 'default-scheduler' });
  cluster.delete('pods', 'default', 'ev');
  await until(() => reasons().includes('Killing'));
  assert.deepEqual(errors, []);

  const quiet = new FakeCluster();
  const q = start(quiet, { podEvents: false });
  t.after(() => q.controllers.stop());
  quiet.create('pods', pod('q'));
  await until(() => status(quiet.get('pods', 'default', 'q')).phase === 'Running');
  assert.equal(quiet.count('events'), 0);
});
