// Rollouts as a user drives them: `kubectl patch` changes a PodSet's template (`kubectl set image` does
// not work on custom kinds), and the pods follow within the strategy's bounds. Every change to the pods
// in kube-sim's store is sampled, so a bound broken for a moment is seen. Real watcher and worker
// processes, kube-sim over HTTP, real Redis, real kubectl.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { activePodsOf, controlledBy, isActive, isReady, parseTable } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const HASH_LABEL = 'podset.io/template-hash';

let env: OperatorEnv;
before(async () => {
  // Pods take a moment to start, so a rollout runs in visible steps.
  env = await startEnv({
    name: 'rollout',
    controllerOptions: {
      podLifecycle: 'fast',
      startupDelayMs: 150,
      startupJitterMs: 150,
      containerExitMs: 50,
    },
  });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
  env.startWorker('worker-1');
});
after(async () => {
  await env?.close();
});

interface Status {
  updatedReplicas?: number;
  availableReplicas?: number;
  templateHash?: string;
  conditions?: { type: string; reason?: string }[];
}
const statusOf = (name: string) => (env.podSet(name) as unknown as { status?: Status } | undefined)?.status;
const podsOf = (name: string): KubeObject[] => {
  const ps = env.podSet(name);
  return ps ? env.pods().filter((p) => controlledBy(p, ps.metadata.uid)) : [];
};

/** Calls `sample` with the PodSet's pods after every change to any pod, until stopped. */
function sampling(name: string, sample: (pods: KubeObject[]) => void): () => void {
  return env.sim.cluster.subscribe((ev) => {
    if (ev.resource === 'pods') sample(podsOf(name));
  });
}

const image = (tag: string) => ({
  spec: {
    template: {
      spec: { containers: [{ name: 'app', image: `busybox:${tag}`, command: ['sleep', '3600'] }] },
    },
  },
});

async function rolledOut(name: string, replicas: number, fromHash: string | undefined): Promise<string> {
  let hash = '';
  await env.waitFor(
    `${name} to roll out a new template to ${replicas} pods`,
    () => {
      const st = statusOf(name);
      hash = st?.templateHash ?? '';
      const active = activePodsOf(env.podSet(name)!, env.pods());
      const problems = env.problems([name]);
      if (hash === '' || hash === fromHash) problems.push(`status.templateHash: still ${hash}`);
      const stale = active.filter((p) => p.metadata.labels?.[HASH_LABEL] !== hash);
      if (stale.length > 0) problems.push(`${stale.length} active pods of another template`);
      if (st?.updatedReplicas !== replicas) problems.push(`updatedReplicas ${st?.updatedReplicas}`);
      if (st?.availableReplicas !== replicas) problems.push(`availableReplicas ${st?.availableReplicas}`);
      const progressing = st?.conditions?.find((c) => c.type === 'Progressing')?.reason;
      if (progressing !== 'PodSetAvailable') problems.push(`Progressing reason ${progressing}`);
      return problems;
    },
    { timeoutMs: 60_000 },
  );
  return hash;
}

test('RollingUpdate with the defaults: 4 replicas never above 5 pods nor below 3 ready, ending all updated', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('web.yaml', [podSetManifest('web', 4)])]);
  await env.waitConverged(['web'], { timeoutMs: 60_000 });
  const firstHash = statusOf('web')?.templateHash;
  assert.match(firstHash ?? '', /^[0-9a-f]{10}$/, 'status.templateHash');
  for (const p of podsOf('web')) assert.equal(p.metadata.labels?.[HASH_LABEL], firstHash, 'pods carry it');

  let samples = 0;
  let maxActive = 0;
  let minReady = Infinity;
  const stop = sampling('web', (pods) => {
    const active = pods.filter(isActive);
    samples++;
    maxActive = Math.max(maxActive, active.length);
    minReady = Math.min(minReady, active.filter(isReady).length);
  });
  try {
    await env.kubectl(['patch', 'ps', 'web', '--type=merge', '-p', JSON.stringify(image('1.37'))]);
    const secondHash = await rolledOut('web', 4, firstHash);
    // and again, mid-flight of nothing: a third template right after
    await env.kubectl(['patch', 'ps', 'web', '--type=merge', '-p', JSON.stringify(image('1.36.1'))]);
    await rolledOut('web', 4, secondHash);
  } finally {
    stop();
  }
  assert.ok(samples >= 20, `sampled every pod change (${samples})`);
  assert.ok(maxActive <= 5, `never more than 4 + maxSurge 1 = 5 active pods, saw ${maxActive}`);
  assert.ok(minReady >= 3, `never fewer than 4 - maxUnavailable 1 = 3 ready, saw ${minReady}`);

  // The user's view: Deployment-like columns, and the rollout's Events.
  const row = parseTable((await env.kubectl(['get', 'ps', 'web'])).stdout)[0];
  assert.deepEqual(
    [row?.DESIRED, row?.CURRENT, row?.['UP-TO-DATE'], row?.AVAILABLE],
    ['4', '4', '4', '4'],
    'kubectl get ps web',
  );
  const events = JSON.parse(
    (await env.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=web', '-o', 'json']))
      .stdout,
  ) as { items: { reason: string; message: string }[] };
  const reasons = events.items.map((e) => e.reason);
  assert.ok(reasons.includes('RolloutStarted'), `RolloutStarted among ${reasons.join(', ')}`);
  assert.ok(reasons.includes('RolloutComplete'), `RolloutComplete among ${reasons.join(', ')}`);
  const started = events.items.find((e) => e.reason === 'RolloutStarted')!;
  assert.match(started.message, new RegExp(`from ${firstHash}`));
});

test('a template whose pods never get ready stops the rollout within its bounds; rolling back completes it', async () => {
  const goodHash = statusOf('web')?.templateHash;
  let maxActive = 0;
  let minReady = Infinity;
  const stop = sampling('web', (pods) => {
    const active = pods.filter(isActive);
    maxActive = Math.max(maxActive, active.length);
    minReady = Math.min(minReady, active.filter(isReady).length);
  });
  const fate = (value: string | null) =>
    JSON.stringify({
      spec: { template: { metadata: { annotations: { 'kube-sim.podset.io/fate': value } } } },
    });
  try {
    await env.kubectl(['patch', 'ps', 'web', '--type=merge', '-p', fate('never-ready')]);
    // 4 replicas, maxSurge 1, maxUnavailable 1: one old pod goes, two new ones wait for ever.
    await env.waitFor('the rollout to stop at 2 new (not ready) and 3 available', () => {
      const st = statusOf('web');
      const p = st?.conditions?.find((c) => c.type === 'Progressing')?.reason;
      return st?.updatedReplicas === 2 && st.availableReplicas === 3 && p === 'RollingOut'
        ? []
        : [`status ${JSON.stringify(st)}`];
    });
    // Proof that the operator looked again and chose to wait: two more reconciles (the requeue of pods
    // not ready comes every 5 s).
    const stuckSince = Date.now();
    await env.waitFor(
      'two more reconciles of the stuck PodSet',
      () => {
        const looked = env.reconcilesSince('default/web', stuckSince);
        return looked >= 2 ? [] : [`${looked}`];
      },
      { timeoutMs: 30_000 },
    );
    const active = podsOf('web').filter(isActive);
    assert.equal(active.length, 5, 'still 5 active pods: the rollout waits, it does not push on');
    assert.equal(active.filter(isReady).length, 3);
    // Rolling back (the annotation removed) makes the 3 old pods current again.
    await env.kubectl(['patch', 'ps', 'web', '--type=merge', '-p', fate(null)]);
    const hash = await rolledOut('web', 4, undefined);
    assert.equal(hash, goodHash, 'the same template hashes the same: a rollback, not a new rollout');
  } finally {
    stop();
  }
  assert.ok(maxActive <= 5, `never more than 5 active pods, saw ${maxActive}`);
  assert.ok(minReady >= 3, `never fewer than 3 ready, saw ${minReady}`);
});

test('Recreate: old and new pods never exist at once', async () => {
  const manifest = podSetManifest('batch', 3);
  (manifest.spec as Record<string, unknown>).strategy = { type: 'Recreate' };
  await env.kubectl(['apply', '-f', env.writeManifest('batch.yaml', [manifest])]);
  await env.waitConverged(['batch'], { timeoutMs: 60_000 });
  const firstHash = statusOf('batch')?.templateHash;

  let samples = 0;
  const mixed: string[] = [];
  const stop = sampling('batch', (pods) => {
    samples++;
    // any pod still there counts, terminating or not: "gone" means gone
    const hashes = new Set(pods.map((p) => p.metadata.labels?.[HASH_LABEL]));
    if (hashes.size > 1) mixed.push([...hashes].join('+'));
  });
  try {
    await env.kubectl(['patch', 'ps', 'batch', '--type=merge', '-p', JSON.stringify(image('1.37'))]);
    await rolledOut('batch', 3, firstHash);
  } finally {
    stop();
  }
  assert.ok(samples >= 10, `sampled every pod change (${samples})`);
  assert.deepEqual(mixed.slice(0, 3), [], 'never pods of two templates at once');
});

test('maxSurge and maxUnavailable both 0 are rejected by the API with a message that says why', async () => {
  const manifest = podSetManifest('stuck', 2);
  (manifest.spec as Record<string, unknown>).strategy = {
    type: 'RollingUpdate',
    rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' },
  };
  const r = await env.kubectl(['apply', '-f', env.writeManifest('stuck.yaml', [manifest])], {
    allowFail: true,
  });
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /spec\.strategy\.rollingUpdate: Invalid value: "object": maxSurge and maxUnavailable may not both be 0/,
  );
  assert.equal(env.podSet('stuck'), undefined, 'nothing stored');
});
