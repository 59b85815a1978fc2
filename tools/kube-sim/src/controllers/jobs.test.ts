import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../apimachinery/types.ts';
import { FakeCluster, obj, until } from './fake-cluster.ts';
import { startControllers, type ControllerOptions } from './index.ts';
import { formatIndexes } from './job-util.ts';

const J = 'jobs.batch';

function start(t: { after: (f: () => void) => void }, options: ControllerOptions = {}) {
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const controllers = startControllers(cluster, {
    startupDelayMs: 0,
    startupJitterMs: 10,
    succeedAfterMs: 30,
    containerExitMs: 10,
    jobBackoffMs: 20,
    podEvents: false,
    onError: (err, ctx) => errors.push(`${ctx}: ${String(err)}`),
    ...options,
  });
  t.after(() => controllers.stop());
  return { cluster, errors };
}

const job = (name: string, spec: JsonObject, annotations?: Record<string, string>) =>
  obj('batch/v1', 'Job', name, 'default', {
    spec: {
      template: {
        ...(annotations ? { metadata: { annotations } } : {}),
        spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] },
      },
      ...spec,
    },
  });

const status = (c: FakeCluster, name: string) => (c.get(J, 'default', name)?.status ?? {}) as JsonObject;
const conditions = (c: FakeCluster, name: string) =>
  ((status(c, name).conditions ?? []) as JsonObject[]).map((x) => `${String(x.type)}:${String(x.reason)}`);
const podsOf = (c: FakeCluster, uid: string | undefined) =>
  c.list('pods', 'default').filter((p) => p.metadata.ownerReferences?.[0]?.uid === uid);

test('a plain Job (no selector, no annotations) runs one pod to Complete, with the labels the server would set', async (t) => {
  const { cluster, errors } = start(t);
  const created = cluster.create(J, job('once', {}));
  await until(() => conditions(cluster, 'once').includes('Complete:CompletionsReached'), 10_000, 'complete');
  assert.deepEqual(conditions(cluster, 'once'), [
    'SuccessCriteriaMet:CompletionsReached',
    'Complete:CompletionsReached',
  ]);
  const s = status(cluster, 'once');
  assert.equal(s.succeeded, 1);
  assert.equal(s.active, undefined);
  assert.ok(s.startTime && s.completionTime);
  const pods = podsOf(cluster, created.metadata.uid);
  assert.equal(pods.length, 1);
  assert.deepEqual(
    { ...pods[0]?.metadata.labels },
    {
      'batch.kubernetes.io/controller-uid': created.metadata.uid,
      'batch.kubernetes.io/job-name': 'once',
      'controller-uid': created.metadata.uid,
      'job-name': 'once',
    },
  );
  assert.equal((pods[0]?.status as JsonObject).phase, 'Succeeded');
  assert.deepEqual(errors, []);
});

test('parallelism bounds the active pods; completions counts the successes', async (t) => {
  const { cluster, errors } = start(t);
  let maxActive = 0;
  const unsubscribe = cluster.subscribe((e) => {
    if (e.resource === J)
      maxActive = Math.max(maxActive, Number((e.object.status as JsonObject | undefined)?.active ?? 0));
  });
  t.after(unsubscribe);
  const created = cluster.create(J, job('batch', { completions: 5, parallelism: 2 }));
  await until(() => conditions(cluster, 'batch').includes('Complete:CompletionsReached'), 10_000, 'complete');
  assert.equal(maxActive, 2);
  assert.equal(status(cluster, 'batch').succeeded, 5);
  assert.equal(podsOf(cluster, created.metadata.uid).length, 5);
  assert.deepEqual(errors, []);
});

test('Indexed: one success per index, hostnames and JOB_COMPLETION_INDEX, completedIndexes', async (t) => {
  const { cluster, errors } = start(t);
  const created = cluster.create(
    J,
    job('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }),
  );
  await until(() => conditions(cluster, 'idx').includes('Complete:CompletionsReached'), 10_000, 'complete');
  assert.equal(status(cluster, 'idx').completedIndexes, '0-2');
  const pods = podsOf(cluster, created.metadata.uid);
  assert.deepEqual(pods.map((p) => (p.spec as JsonObject).hostname).sort(), ['idx-0', 'idx-1', 'idx-2']);
  for (const p of pods) {
    const index = p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'];
    const env = ((p.spec as { containers: { env: JsonObject[] }[] }).containers[0]?.env ?? []).find(
      (e) => e.name === 'JOB_COMPLETION_INDEX',
    );
    assert.equal(env?.value, index);
    assert.match(p.metadata.name ?? '', new RegExp(`^idx-${index}-`));
  }
  assert.deepEqual(errors, []);
});

test('failed pods are replaced until more than backoffLimit failed: FailureTarget, then Failed', async (t) => {
  const { cluster, errors } = start(t);
  const created = cluster.create(J, job('bad', { backoffLimit: 2 }, { 'kube-sim.podset.io/fate': 'fail' }));
  await until(() => conditions(cluster, 'bad').includes('Failed:BackoffLimitExceeded'), 10_000, 'failed');
  assert.deepEqual(conditions(cluster, 'bad'), [
    'FailureTarget:BackoffLimitExceeded',
    'Failed:BackoffLimitExceeded',
  ]);
  assert.equal(status(cluster, 'bad').failed, 3);
  assert.equal(status(cluster, 'bad').completionTime, undefined);
  assert.equal(podsOf(cluster, created.metadata.uid).length, 3);
  assert.deepEqual(errors, []);
});

test('activeDeadlineSeconds: a Job running longer fails with DeadlineExceeded and its pods are deleted', async (t) => {
  const { cluster, errors } = start(t);
  const created = cluster.create(
    J,
    job('slow', { activeDeadlineSeconds: 1 }, { 'kube-sim.podset.io/fate': 'ready' }),
  );
  await until(() => conditions(cluster, 'slow').includes('Failed:DeadlineExceeded'), 10_000, 'deadline');
  assert.equal(podsOf(cluster, created.metadata.uid).length, 0);
  assert.deepEqual(errors, []);
});

test('formatIndexes writes ranges', () => {
  assert.equal(formatIndexes([3, 0, 1, 2, 7, 9, 8]), '0-3,7-9');
  assert.equal(formatIndexes([5]), '5');
  assert.equal(formatIndexes([]), '');
});
