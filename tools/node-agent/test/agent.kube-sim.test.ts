// The node agent as a user runs it (its CLI, a child process) against kube-sim's CLI started with its own
// pod lifecycle and nodes off (`--no-lifecycle --nodes 0`): nothing but the agent can bind a pod or make it
// run, so every state asserted here is the agent's doing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Proc, startRedis, waitFor, type RedisServer } from '@podset/testkit';
import {
  BareControlPlane,
  condition,
  logged as loggedBy,
  NODE,
  PRELOAD,
  REPO,
  startAgent,
  waitLog as waitLogOf,
  type Condition,
  type PodJson,
  type PodOptions,
} from './support.ts';

const FATE = 'kube-sim.podset.io/fate';

describe('node agent on kube-sim without its pod lifecycle', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'node-agent-'));
  let cluster: BareControlPlane;
  let kubeconfig = '';
  let agent: Proc;
  let redis: RedisServer | undefined;
  const operator: Proc[] = [];

  const k = (args: string[]) => cluster.kubectl(args);
  const api = <T>(method: string, p: string, body?: unknown) => cluster.api<T>(method, p, body);
  const pod = (name: string) => cluster.pod(name);
  const createPod = (name: string, o: PodOptions = {}) => cluster.createPod(name, o);
  const waitPod = (name: string, what: string, check: (p: PodJson) => boolean) =>
    cluster.waitPod(name, what, check, { describe: () => agent.describe() });
  const logged = (msg: string, pod?: string) => loggedBy(agent, msg, pod);
  const waitLog = (msg: string, pod?: string) => waitLogOf(agent, msg, pod);

  before(async () => {
    cluster = await BareControlPlane.start(dir);
    kubeconfig = cluster.kubeconfig;
  });
  after(async () => {
    await Promise.all(operator.map((p) => p.stop(10_000)));
    await redis?.close();
    await agent?.stop(10_000);
    await cluster?.sim.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a pod created before the agent stays unbound: kube-sim schedules nothing itself', async () => {
    await createPod('early');
    await k(['get', 'pods']);
    const early = await pod('early');
    assert.equal(early.spec.nodeName, undefined);
    assert.notEqual(early.status?.phase, 'Running');
  });

  test('registers its nodes Ready, with capacity and a Lease each', async () => {
    agent = startAgent(cluster, [
      '--nodes',
      '2',
      '--startup-delay-ms',
      '50',
      '--startup-jitter-ms',
      '50',
      '--container-exit-ms',
      '100',
      '--succeed-after-ms',
      '200',
      '--crash-loop-backoff-ms',
      '100',
      '--log-level',
      'debug',
    ]);
    await agent.waitForLine(/"msg":"node agent ready"/, 60_000);
    const nodes = (
      await api<{
        items: {
          metadata: { name: string };
          status: { conditions: Condition[]; allocatable: Record<string, string>; addresses: unknown[] };
        }[];
      }>('GET', '/api/v1/nodes')
    ).json.items;
    assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), ['agent-node-1', 'agent-node-2']);
    for (const n of nodes) {
      assert.equal(n.status.conditions.find((c) => c.type === 'Ready')?.status, 'True', n.metadata.name);
      assert.equal(n.status.allocatable.pods, '110');
      assert.ok(n.status.addresses.length > 0);
    }
    const leases = (
      await api<{
        items: { metadata: { name: string }; spec: { holderIdentity: string; renewTime: string } }[];
      }>('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')
    ).json.items;
    assert.deepEqual(leases.map((l) => l.spec.holderIdentity).sort(), ['agent-node-1', 'agent-node-2']);
    const out = await k(['get', 'nodes']);
    assert.match(out.stdout, /agent-node-1\s+Ready/);
  });

  test('binds pending pods and runs them Ready with the conditions and container statuses of a kubelet', async () => {
    const early = await waitPod('early', 'Running and Ready', (p) => condition(p, 'Ready') === 'True');
    assert.match(early.spec.nodeName ?? '', /^agent-node-[12]$/);
    await createPod('web');
    const web = await waitPod('web', 'Running and Ready', (p) => condition(p, 'Ready') === 'True');
    assert.equal(web.status?.phase, 'Running');
    assert.match(web.spec.nodeName ?? '', /^agent-node-[12]$/);
    for (const type of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'])
      assert.equal(condition(web, type), 'True', type);
    assert.match(web.status?.podIP ?? '', /^10\.244\.\d+\.\d+$/);
    assert.match(web.status?.hostIP ?? '', /^172\.30\./);
    const [c] = web.status?.containerStatuses ?? [];
    assert.ok(c, 'a container status');
    assert.equal(c.name, 'app');
    assert.equal(c.ready, true);
    assert.equal(c.started, true);
    assert.equal(c.restartCount, 0);
    assert.equal(c.image, 'docker.io/library/nginx:1.27');
    assert.match(c.imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.match(c.containerID ?? '', /^containerd:\/\/[0-9a-f]+$/);
    assert.ok(c.state.running?.startedAt, 'state.running.startedAt');
    await waitLog('pod bound', 'default/web');
    await waitLog('pod started', 'default/web');
    const wide = await k(['get', 'pod', 'web', '-o', 'wide']);
    assert.match(wide.stdout, /web\s+1\/1\s+Running\s+0/);
  });

  test('honours the fates: never-ready, fail (Failed, or a crash loop when restarted), succeed, slow start', async () => {
    await createPod('never', { annotations: { [FATE]: 'never-ready' } });
    await createPod('failed', { annotations: { [FATE]: 'fail' }, restartPolicy: 'Never' });
    await createPod('crash', { annotations: { [FATE]: 'fail' } });
    await createPod('job', { restartPolicy: 'Never' });
    await createPod('slow', { annotations: { 'kube-sim.podset.io/startup-delay-ms': '2500' } });

    const failed = await waitPod('failed', 'Failed', (p) => p.status?.phase === 'Failed');
    assert.equal(condition(failed, 'Ready'), 'False');
    const [exited] = failed.status?.containerStatuses ?? [];
    assert.equal(exited?.state.terminated?.exitCode, 1);
    assert.equal(exited?.state.terminated?.reason, 'Error');

    // restartPolicy Always: restarted after a back-off, never Failed, as a kubelet does.
    const crash = await waitPod(
      'crash',
      'restarted twice',
      (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2,
    );
    assert.equal(crash.status?.phase, 'Running');
    assert.equal(condition(crash, 'Ready'), 'False');
    const [looping] = crash.status?.containerStatuses ?? [];
    assert.equal(looping?.state.waiting?.reason, 'CrashLoopBackOff');
    assert.equal(looping?.lastState?.terminated?.exitCode, 1);

    const job = await waitPod('job', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    assert.equal(job.status?.containerStatuses?.[0]?.state.terminated?.exitCode, 0);

    // Slow start: containers waiting in ContainerCreating on the node, then running 2.5 s after that.
    const slow = await waitPod('slow', 'Running', (p) => p.status?.phase === 'Running');
    const started = Date.parse(slow.status?.containerStatuses?.[0]?.state.running?.startedAt ?? '');
    const accepted = Date.parse(slow.status?.startTime ?? '');
    assert.ok(started - accepted >= 2000, `accepted ${slow.status?.startTime}, running ${String(started)}`);

    // Never ready: Running, and still not Ready once a pod created after it has run its whole course.
    await waitPod('never', 'Running', (p) => p.status?.phase === 'Running');
    await createPod('later');
    await waitPod('later', 'Ready', (p) => condition(p, 'Ready') === 'True');
    const never = await pod('never');
    assert.equal(never.status?.phase, 'Running');
    assert.equal(condition(never, 'Ready'), 'False');
    assert.equal(condition(never, 'ContainersReady'), 'False');
    assert.equal(never.status?.containerStatuses?.[0]?.ready, false);
  });

  test('finishes graceful deletions: after the containers stop, or at the end of the grace period', async () => {
    // Default grace period (30 s): removed once the containers exited (100 ms here).
    await k(['delete', 'pod', 'web', '--wait=true', '--timeout=60s']);
    assert.equal((await api('GET', '/api/v1/namespaces/default/pods/web')).status, 404);
    await waitLog('pod removed', 'default/web');
    // Containers that would take a minute to stop: removed when the 2 s grace period ends.
    await createPod('stubborn', { annotations: { 'kube-sim.podset.io/exit-delay-ms': '60000' } });
    await waitPod('stubborn', 'Ready', (p) => condition(p, 'Ready') === 'True');
    await k(['delete', 'pod', 'stubborn', '--grace-period=2', '--wait=false']);
    const terminating = await pod('stubborn');
    assert.ok(terminating.metadata.deletionTimestamp, 'Terminating during its grace period');
    await waitFor(
      'stubborn removed',
      async () => (await api('GET', '/api/v1/namespaces/default/pods/stubborn')).status === 404,
      {
        timeoutMs: 30_000,
        describe: () => agent.describe(),
      },
    );
    await waitLog('pod removed', 'default/stubborn');
  });

  test('survives watches that end and a 410 Gone: resumes, relists, and keeps running pods', async () => {
    // Every watch ends after 2 events; later the history is compacted and the next watch answered 410.
    await api('PUT', '/kube-sim/faults', { watchCutAfterEvents: 2 });
    for (const name of ['cut-1', 'cut-2', 'cut-3']) await createPod(name);
    for (const name of ['cut-1', 'cut-2', 'cut-3'])
      await waitPod(name, 'Ready', (p) => condition(p, 'Ready') === 'True');
    await waitLog('watch ended: resuming');
    await api('POST', '/kube-sim/history', { compact: true });
    await api('POST', '/kube-sim/faults/expire-watches?n=1');
    await createPod('after-gone');
    await waitPod('after-gone', 'Ready', (p) => condition(p, 'Ready') === 'True');
    await waitFor('the agent relisted', () => agent.lines().some((l) => /relisting/.test(l)), {
      describe: () => agent.tail(30),
    });
    await api('PUT', '/kube-sim/faults', { reset: true });
    assert.ok(agent.running, agent.describe());
  });

  test('the operator converges a PodSet, scales it down and deletes it, with the agent as the kubelet', async () => {
    redis = await startRedis();
    await k(['apply', '-f', path.join(REPO, 'crds/podset.yaml')]);
    await k(['wait', '--for=condition=Established', 'crd/podsets.podset.io']);
    const app = (name: string, main: string) =>
      new Proc({
        name,
        command: NODE,
        args: ['--import', PRELOAD, path.join(REPO, main)],
        env: {
          ...cluster.env,
          KUBECONFIG: kubeconfig,
          REDIS_URL: redis!.url,
          HTTP_PORT: '0',
          POD_NAME: name,
          LOG_LEVEL: 'info',
          SHUTDOWN_TIMEOUT_SECONDS: '5',
        },
      });
    operator.push(app('watcher', 'apps/watcher/src/main.ts'), app('worker', 'apps/worker/src/main.ts'));
    const describe = () => [agent, ...operator].map((p) => p.describe()).join('\n');
    await api('POST', '/apis/podset.io/v1/namespaces/default/podsets', {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { name: 'shop' },
      spec: {
        replicas: 3,
        template: {
          metadata: { labels: { app: 'shop' } },
          spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
        },
      },
    });
    type PodSetJson = {
      metadata: { generation: number };
      status?: {
        readyReplicas?: number;
        replicas?: number;
        observedGeneration?: number;
        conditions?: Condition[];
      };
    };
    const podSet = async () =>
      (await api<PodSetJson>('GET', '/apis/podset.io/v1/namespaces/default/podsets/shop')).json;
    const settled = (want: number) => async () => {
      const ps = await podSet();
      return (
        ps.status?.observedGeneration === ps.metadata.generation &&
        ps.status.replicas === want &&
        ps.status.readyReplicas === want &&
        ps.status.conditions?.find((c) => c.type === 'Available')?.status === 'True'
      );
    };
    await waitFor('PodSet shop: 3 ready, Available', settled(3), { timeoutMs: 90_000, describe });
    const pods = (
      await api<{ items: PodJson[] }>(
        'GET',
        '/api/v1/namespaces/default/pods?labelSelector=podset.io%2Fname%3Dshop',
      )
    ).json.items;
    assert.equal(pods.length, 3);
    for (const p of pods) assert.match(p.spec.nodeName ?? '', /^agent-node-[12]$/, p.metadata.name);

    const removed = () => pods.filter((p) => logged('pod removed', `default/${p.metadata.name}`)).length;
    assert.equal(removed(), 0);
    await k(['scale', 'podset', 'shop', '--replicas=1']);
    await waitFor('PodSet shop: 1 ready', settled(1), { timeoutMs: 60_000, describe });
    await waitFor('two of the three pods removed by the agent', () => removed() === 2, { describe });

    await k(['delete', 'podset', 'shop', '--wait=true', '--timeout=60s']);
    // The operator deleted the last pod before letting the PodSet go; the agent finishes that deletion.
    await waitFor(
      'no pod of shop left',
      async () =>
        (
          await api<{ items: PodJson[] }>(
            'GET',
            '/api/v1/namespaces/default/pods?labelSelector=podset.io%2Fname%3Dshop',
          )
        ).json.items.length === 0,
      { timeoutMs: 30_000, describe },
    );
  });

  test('stops cleanly on SIGTERM', async () => {
    const exit = await agent.stop(10_000);
    assert.deepEqual(exit, { code: 0, signal: null }, agent.describe());
    await waitLog('node agent stopped');
  });
});
