// The user's kubectl against the running operator: scale and patch up and down, a deleted pod is
// replaced, a deleted PodSet's pods go (finalizer cleanup) and then the PodSet itself.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { NAME_LABEL, activePodsOf } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'kubectl' });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
  env.startWorker('worker-1');
});
after(async () => {
  await env?.close();
});

const generation = (name: string) => env.podSet(name)?.metadata.generation;
const activeNames = (name: string) => {
  const ps = env.podSet(name);
  return ps ? activePodsOf(ps, env.pods()).map((p) => p.metadata.name ?? '') : [];
};
/** Converged, and no pod of it at all besides the active ones (the surplus is really gone). */
async function settled(name: string, timeoutMs = 60_000): Promise<void> {
  await env.waitFor(
    `${name} to converge with no leftover pods`,
    () => {
      const problems = env.problems([name]);
      const all = env.pods().filter((p) => p.metadata.labels?.[NAME_LABEL] === name);
      const want = (env.podSet(name)?.spec as { replicas?: number } | undefined)?.replicas;
      if (all.length !== want) problems.push(`${name}: pods labelled: expected ${want}, saw ${all.length}`);
      return problems;
    },
    { timeoutMs },
  );
}

test('kubectl scale ps up and down converges', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('web.yaml', [podSetManifest('web', 2)])]);
  await settled('web');
  const g0 = generation('web');
  await env.kubectl(['scale', 'ps', 'web', '--replicas=5']);
  await settled('web');
  assert.equal(generation('web'), (g0 ?? 0) + 1, 'scale bumps the generation once');
  await env.kubectl(['scale', 'ps', 'web', '--replicas=1']);
  await settled('web');
  assert.equal(activeNames('web').length, 1);
});

test('kubectl patch --type=merge up and down (to 0) converges', async () => {
  await env.kubectl(['patch', 'ps', 'web', '--type=merge', '-p', '{"spec":{"replicas":4}}']);
  await settled('web');
  await env.kubectl(['patch', 'ps', 'web', '--type=merge', '-p', '{"spec":{"replicas":0}}']);
  await settled('web');
  assert.deepEqual(activeNames('web'), []);
  await env.kubectl([
    'patch',
    'ps',
    'web',
    '--type=json',
    '-p',
    '[{"op":"replace","path":"/spec/replicas","value":3}]',
  ]);
  await settled('web');
  env.assertAllRunning();
});

test('a pod deleted with kubectl is replaced', async () => {
  const before = activeNames('web');
  assert.equal(before.length, 3);
  const victim = before[1] as string;
  await env.kubectl(['delete', 'pod', victim, '--timeout=60s']);
  await env.waitFor(`a replacement for ${victim}`, () => {
    const problems = env.problems(['web']);
    if (activeNames('web').includes(victim)) problems.push(`expected ${victim} gone from the active pods`);
    return problems;
  });
  const now = activeNames('web');
  assert.equal(now.filter((n) => before.includes(n)).length, 2, `the other two pods stay: ${now}`);
});

test('kubectl delete ps: the finalizer holds the PodSet until its pods are gone, then it disappears', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('doomed.yaml', [podSetManifest('doomed', 3)])]);
  await settled('doomed');
  const ps = env.podSet('doomed');
  assert.ok(
    ps?.metadata.finalizers?.includes('podset.io/cleanup'),
    `expected the operator's finalizer, saw ${JSON.stringify(ps?.metadata.finalizers)}`,
  );
  const pods = activeNames('doomed');
  const since = new Date().toISOString();
  // kubectl waits for the object to be gone (finalizers included).
  await env.kubectl(['delete', 'ps', 'doomed', '--timeout=60s']);
  assert.equal(env.podSet('doomed'), undefined, 'the PodSet is gone when kubectl delete returns');
  // Its traces in Redis were removed before the finalizer: nothing is left of its finished jobs and
  // event-log entries from before the deletion (what the watcher logs of the deletion itself may come
  // after the cleanup, and the job that did the cleanup finishes after it).
  assert.deepEqual(await tracesBefore('default/doomed', since), { jobs: [], events: [] });
  await env.waitFor('the deleted PodSet’s pods to be gone', () =>
    env
      .pods()
      .filter((p) => p.metadata.labels?.[NAME_LABEL] === 'doomed')
      .map((p) => `pod ${p.metadata.name} still exists (deletionTimestamp ${p.metadata.deletionTimestamp})`),
  );
  // The worker's cleanup deleted them (not only the garbage collector after the PodSet was gone).
  const deletedByWorker = new Set(
    env.sim.audit
      .query({ since, user: 'worker', verb: 'delete', resource: 'pods' })
      .filter((e) => e.code === 200 || e.code === 202)
      .map((e) => e.name),
  );
  assert.deepEqual(
    pods.filter((n) => !deletedByWorker.has(n)),
    [],
    'every pod of the PodSet was deleted by the worker during cleanup',
  );
  // The untouched PodSet is still fine.
  assert.deepEqual(env.problems(['web']), []);
  env.assertAllRunning();
});

/** The key's finished jobs that finished, and its event-log entries logged, before `since`. */
async function tracesBefore(key: string, since: string): Promise<{ jobs: string[]; events: string[] }> {
  const base = `${process.env.E2E_QUEUE_PREFIX || DEFAULT_PREFIX}:${process.env.E2E_QUEUE_NAME || DEFAULT_QUEUE_NAME}`;
  const redis = new Redis(env.redis.url);
  try {
    const jobs: string[] = [];
    for (const state of ['completed', 'failed']) {
      for (const id of await redis.zrangebyscore(`${base}:${state}`, '-inf', Date.parse(since))) {
        if ((await redis.hget(`${base}:${id}`, 'name')) === key) jobs.push(`${state} ${id}`);
      }
    }
    const events: string[] = [];
    for (const [id, flat] of await redis.xrange(`${base}:watcher:events`, '-', '+')) {
      const f = new Map<string, string>();
      for (let i = 0; i + 1 < flat.length; i += 2) f.set(flat[i]!, flat[i + 1]!);
      if (f.get('key') === key && (f.get('t') ?? '') < since)
        events.push(`${id} ${f.get('type')} ${f.get('kind')}`);
    }
    return { jobs, events };
  } finally {
    redis.disconnect();
  }
}
