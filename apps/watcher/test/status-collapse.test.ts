// Status-only changes collapse with their neighbours, on kube-sim and a real Redis, through the real queue
// and a real queue worker, with either state source: the pods of one PodSet turning ready inside the window
// are one delayed job (one reconcile), and a plan change inside the window makes that job due at once.
// How long a readiness change waits is judged from what it means for its PodSet: the last of its pods to turn
// ready is requested due at once (pulling the delayed job forward), the others wait the long window
// (STATUS_COLLAPSE_PARTIAL_MS), and during a rollout (the PodSet's status says RollingOut) the short one.
// The window is far longer than the test, so nothing here depends on how fast the machine is: what is
// checked is the jobs in Redis and the reconciles counted, never a time.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startReconcileWorker, type ReconcileWorker } from '@podset/queue';
import { ProjectionReader } from '@podset/state';
import { waitFor } from '@podset/testkit';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { Redis } from 'ioredis';
import { createPod, createPodSet, startTestWatcher, type TestWatcher } from './support.ts';

const env = useSimCluster({ sim: { controllers: false }, redis: true });
const WINDOW_MS = 10 * 60_000;
let redis: Redis;

before(async () => {
  await env.ready;
  redis = new Redis(env.redis.url, { maxRetriesPerRequest: 3 });
});
after(() => redis?.disconnect());

/** Watch events the watcher has admitted (whatever they came to). */
async function eventsAdmitted(w: TestWatcher): Promise<number> {
  const metric = await w.running.metrics.getSingleMetric('podset_watch_event_outcomes_total')?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

/** Once `n` events were admitted and every request they made was answered. */
async function settled(w: TestWatcher, n: number): Promise<void> {
  await waitFor(`${n} events admitted, their requests answered`, async () => {
    return (await eventsAdmitted(w)) >= n && w.recording.inFlight === 0;
  });
}

/**
 * A queue worker that records the keys it runs, and a watcher on the same queue, its watches open (and, with
 * the projection, the projection ready): what follows comes as watch events.
 */
async function startPair(
  queueName: string,
  stateSource: 'projection' | 'api',
  windows: { statusCollapseMs: number; statusCollapsePartialMs?: number },
): Promise<{ worker: ReconcileWorker; w: TestWatcher; runs: string[] }> {
  const runs: string[] = [];
  const worker = startReconcileWorker({
    connection: env.redis.url,
    prefix: 'wp',
    queueName,
    concurrency: 2,
    handler: async (req) => void runs.push(req.key),
  });
  const w = await startTestWatcher(env, {
    queuePrefix: 'wp',
    queueName,
    stateSource,
    ...windows,
  });
  try {
    await waitFor('watches open', () => w.watcher.loops.every((l) => l.counters.watchesOpened > 0));
    if (stateSource === 'projection') {
      const projection = new ProjectionReader({ client: redis, prefix: 'wp', queueName });
      await waitFor('the projection to be ready', () => projection.isReady());
    }
  } catch (err) {
    await w.stop();
    await worker.close();
    throw err;
  }
  return { worker, w, runs };
}

/** The key's queue: its jobs by state. */
async function jobs(worker: ReconcileWorker) {
  const c = await worker.queue.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
  return { due: (c.waiting ?? 0) + (c.prioritized ?? 0), delayed: c.delayed ?? 0, active: c.active ?? 0 };
}

function setReady(namespace: string, name: string, status: { phase: string; ready: boolean }) {
  const pod = env.sim.cluster.get('pods', namespace, name);
  assert.ok(pod, `pod ${name}`);
  env.sim.cluster.updateStatus('pods', {
    ...pod,
    status: { phase: status.phase, conditions: [{ type: 'Ready', status: status.ready ? 'True' : 'False' }] },
  });
}

for (const stateSource of ['projection', 'api'] as const) {
  test(`${stateSource}: pods turning ready inside the window cost one reconcile; a plan change makes it due at once`, async () => {
    const queueName = `collapse-${stateSource}`;
    const key = `default/${queueName}`;
    const { worker, w, runs } = await startPair(queueName, stateSource, { statusCollapseMs: WINDOW_MS });
    try {
      // A PodSet and its four pods, new: plan changes, reconciled at once. The fourth never turns ready, so
      // no readiness here leaves the PodSet's pods all ready (that one would be due at once).
      const ps = await createPodSet(env.sim, queueName, 'default', 4);
      const names = [1, 2, 3].map((i) => `${queueName}-${i}`);
      for (const name of [...names, `${queueName}-4`])
        await createPod(env.sim, name, { name: queueName, uid: ps.metadata.uid });
      await settled(w, 5);
      await waitFor('the reconciles of the new PodSet and pods ran', async () => {
        const j = await jobs(worker);
        return runs.length > 0 && j.due + j.delayed + j.active === 0;
      });
      assert.ok(
        w.recording.requests.every((r) => (r.delayMs ?? 0) === 0),
        'new objects are requested due at once',
      );
      await worker.worker.pause();
      const runsBefore = runs.length;
      const requestsBefore = w.recording.requests.length;

      // The three turn Running and Ready, each in its own write: status-only, one delayed job.
      for (const name of names) setReady('default', name, { phase: 'Running', ready: true });
      await settled(w, 8);
      const statusRequests = w.recording.requests.slice(requestsBefore);
      assert.ok(statusRequests.length >= 1, 'the readiness changes are requested');
      assert.deepEqual(
        statusRequests.map((r) => [r.key, r.delayMs]),
        statusRequests.map(() => [key, WINDOW_MS]),
        'each due after the window',
      );
      assert.deepEqual(
        await jobs(worker),
        { due: 0, delayed: 1, active: 0 },
        'one delayed job carries all three',
      );

      // Inside the window, one pod fails (it must be replaced): the job is due now.
      setReady('default', names[0]!, { phase: 'Failed', ready: false });
      await settled(w, 9);
      const last = w.recording.requests.at(-1);
      assert.deepEqual([last?.key, last?.delayMs ?? 0], [key, 0], 'the plan change is requested due at once');
      assert.deepEqual(
        await jobs(worker),
        { due: 1, delayed: 0, active: 0 },
        'the delayed job was pulled forward',
      );

      void worker.worker.resume();
      await waitFor('the reconcile ran', async () => {
        const j = await jobs(worker);
        return runs.length > runsBefore && j.due + j.delayed + j.active === 0;
      });
      assert.deepEqual(runs.slice(runsBefore), [key], 'three readiness changes and a failure: one reconcile');
    } finally {
      await w.stop();
      await worker.close();
    }
  });
}

const PARTIAL_MS = 20 * 60_000;

function setRollingOut(namespace: string, name: string) {
  const ps = env.sim.cluster.get('podsets.podset.io', namespace, name);
  assert.ok(ps, `podset ${name}`);
  env.sim.cluster.updateStatus('podsets.podset.io', {
    ...ps,
    status: { conditions: [{ type: 'Progressing', status: 'True', reason: 'RollingOut' }] },
  });
}

for (const stateSource of ['projection', 'api'] as const) {
  test(`${stateSource}: the last pod to turn ready is requested at once, the others after the long window; during a rollout, the short one`, async () => {
    const queueName = `windows-${stateSource}`;
    const key = `default/${queueName}`;
    const { worker, w, runs } = await startPair(queueName, stateSource, {
      statusCollapseMs: WINDOW_MS,
      statusCollapsePartialMs: PARTIAL_MS,
    });
    const idle = () =>
      waitFor('every job ran', async () => {
        const j = await jobs(worker);
        return j.due + j.delayed + j.active === 0;
      });
    try {
      const ps = await createPodSet(env.sim, queueName, 'default', 3);
      const names = [1, 2, 3].map((i) => `${queueName}-${i}`);
      for (const name of names) await createPod(env.sim, name, { name: queueName, uid: ps.metadata.uid });
      await settled(w, 4);
      await waitFor('the new PodSet reconciled', () => runs.length > 0);
      await idle();
      await worker.worker.pause();
      const runsBefore = runs.length;
      let seen = w.recording.requests.length;
      const delaysSince = () => {
        const made = w.recording.requests.slice(seen).map((r) => [r.key, r.delayMs ?? 0]);
        seen = w.recording.requests.length;
        return made;
      };

      // Two of three turn ready: the long window, one delayed job.
      setReady('default', names[0]!, { phase: 'Running', ready: true });
      setReady('default', names[1]!, { phase: 'Running', ready: true });
      await settled(w, 6);
      const partial = delaysSince();
      assert.ok(partial.length >= 1);
      assert.deepEqual(
        partial,
        partial.map(() => [key, PARTIAL_MS]),
        'not all ready: the long window',
      );
      assert.deepEqual(await jobs(worker), { due: 0, delayed: 1, active: 0 });

      // The last one: all ready, requested at once, the delayed job pulled forward.
      setReady('default', names[2]!, { phase: 'Running', ready: true });
      await settled(w, 7);
      assert.deepEqual(delaysSince(), [[key, 0]], 'all ready: at once');
      assert.deepEqual(await jobs(worker), { due: 1, delayed: 0, active: 0 });
      void worker.worker.resume();
      await waitFor('the reconcile ran', () => runs.length > runsBefore);
      await idle();
      assert.deepEqual(runs.slice(runsBefore), [key], 'three readiness changes: one reconcile');

      // A rollout under way (as the PodSet's status says it): a pod turning not ready waits the short window.
      await worker.worker.pause();
      setRollingOut('default', queueName);
      await settled(w, 8);
      delaysSince();
      setReady('default', names[0]!, { phase: 'Running', ready: false });
      await settled(w, 9);
      assert.deepEqual(delaysSince(), [[key, WINDOW_MS]], 'rolling out: the short window');
    } finally {
      await w.stop();
      await worker.close();
    }
  });
}
