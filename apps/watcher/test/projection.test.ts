// STATE_SOURCE=projection, on kube-sim and a real Redis: the watcher folds every event into the projection
// before requesting, requests nothing for an event that cannot change a plan, marks the projection ready
// once its relists are folded, and rebuilds it from a relist when Redis lost its data.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { ProjectionReader } from '@podset/state';
import { waitFor } from '@podset/testkit';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { createPod, createPodSet, startTestWatcher, type RecordingQueue } from './support.ts';

const env = useSimCluster({ sim: { bookmarkIntervalMs: 300, controllers: false }, redis: true });
let redis: Redis;
const stops: (() => Promise<void>)[] = [];
let seq = 0;

before(async () => {
  await env.ready;
  redis = new Redis(env.redis.url, { maxRetriesPerRequest: 3 });
});
after(async () => {
  redis?.disconnect();
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function startWatcher() {
  const n = ++seq;
  const { watcher, recording, stop } = await startTestWatcher(env, {
    queuePrefix: 'wp',
    queueName: `proj-${n}`,
  });
  stops.push(stop);
  // What the watcher wrote, read as a worker reads it.
  const projection = new ProjectionReader({ client: redis, prefix: 'wp', queueName: `proj-${n}` });
  await waitFor('the projection to be ready', () => projection.isReady());
  return { watcher, projection, recording };
}

const liveFor = (recording: RecordingQueue, key: string) =>
  recording.requests.filter((r) => r.key === key && r.source === 'live').length;

test('events are folded before their request; an event that cannot change a plan requests nothing', async () => {
  const { watcher, projection, recording } = await startWatcher();
  const ps = await createPodSet(env.sim, 'proj-a', 'default', 2);
  await createPod(env.sim, 'proj-a-1', { name: 'proj-a', uid: ps.metadata.uid });
  // The PodSet's request and the pod's: each recorded when it is made, after its event was folded.
  await waitFor('both requested', () => liveFor(recording, 'default/proj-a') >= 2);
  const state = await projection.read('default/proj-a');
  assert.equal(state?.podset?.metadata.uid, ps.metadata.uid);
  assert.equal(state?.pods.length, 1);
  const requests = liveFor(recording, 'default/proj-a');

  // Bound to a node: the plan reads nothing of that. Then Ready: it does.
  // (pods/binding, as the scheduler binds: an update may not set spec.nodeName)
  const bound = env.sim.cluster.bind('default', 'proj-a-1', 'node-1');
  // Folded apart: in one batch with the Ready change, the bind would be superseded by it (not folded).
  await waitFor(
    'the bind in the projection',
    async () => (await projection.read('default/proj-a'))?.pods[0]?.spec?.nodeName === 'node-1',
  );
  env.sim.cluster.updateStatus('pods', {
    ...bound,
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
  await waitFor(
    'the Ready pod in the projection',
    async () => (await projection.read('default/proj-a'))?.pods[0]?.status?.phase === 'Running',
  );
  await waitFor('the Ready change requested', () => liveFor(recording, 'default/proj-a') >= requests + 1);
  // Folds land in event order: by the time the Ready change was requested, the bind was folded.
  assert.equal(liveFor(recording, 'default/proj-a'), requests + 1, 'one request, for the Ready change');
  assert.equal(watcher.pipeline.unchanged, 1, 'the bind to a node was folded and requested nothing');
  assert.equal((await projection.read('default/proj-a'))?.pods[0]?.spec?.nodeName, 'node-1');
});

test('a Redis that lost its data: not ready until the relist has rebuilt the projection', async () => {
  const { projection } = await startWatcher();
  const ps = await createPodSet(env.sim, 'proj-b', 'default', 1);
  await createPod(env.sim, 'proj-b-1', { name: 'proj-b', uid: ps.metadata.uid });
  await waitFor(
    'the pod in the projection',
    async () => (await projection.read('default/proj-b'))?.pods.length === 1,
  );
  await redis.flushall();
  assert.equal(await projection.read('default/proj-b'), undefined, 'not ready: workers must not trust it');
  await waitFor('the projection rebuilt and ready', async () => {
    const state = await projection.read('default/proj-b');
    return state?.pods.length === 1 && state.podset?.metadata.uid === ps.metadata.uid;
  });
});
