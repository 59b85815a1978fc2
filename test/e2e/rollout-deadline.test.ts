// The progress deadline and Available as a user sees them with kubectl: a scale-up and a rollout whose
// pods never get ready turn Progressing False (ProgressDeadlineExceeded) with a Warning Event, and stay
// where they are; `kubectl wait --for=condition=Available` answers as it does for Deployments. The
// workers' poll of pods not ready is set to a minute, so what notices the deadline within the test is
// the look the planner asks for at the deadline. Real watcher and worker processes, kube-sim over HTTP,
// real Redis, real kubectl.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { activePodsOf, isReady } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const FATE = 'kube-sim.podset.io/fate';

let env: OperatorEnv;
before(async () => {
  // Pods take a moment to start, so a pass sees a scale-up's new pods before they are ready.
  env = await startEnv({
    name: 'rollout-deadline',
    controllerOptions: {
      podLifecycle: 'fast',
      startupDelayMs: 300,
      startupJitterMs: 300,
      containerExitMs: 50,
    },
    workerEnv: { REQUEUE_PENDING_SECONDS: '60' },
  });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
});
after(async () => {
  await env?.close();
});

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
}
const conditionOf = (name: string, type: string): Condition | undefined =>
  (
    env.podSet(name) as unknown as { status?: { conditions?: Condition[] } } | undefined
  )?.status?.conditions?.find((c) => c.type === type);
const activePods = (name: string): KubeObject[] => activePodsOf(env.podSet(name)!, env.pods());

function manifest(name: string, replicas: number, spec: Record<string, unknown>, fate?: string) {
  const m = podSetManifest(name, replicas);
  const s = m.spec as { template: { metadata: Record<string, unknown> } };
  if (fate) s.template.metadata.annotations = { [FATE]: fate };
  Object.assign(m.spec as Record<string, unknown>, spec);
  return m;
}

async function warnings(name: string): Promise<{ type: string; reason: string; message: string }[]> {
  const r = await env.kubectl([
    'get',
    'events',
    '--field-selector',
    `involvedObject.name=${name},reason=ProgressDeadlineExceeded`,
    '-o',
    'json',
  ]);
  return (JSON.parse(r.stdout) as { items: { type: string; reason: string; message: string }[] }).items;
}

const fatePatch = (value: string | null) =>
  JSON.stringify({ spec: { template: { metadata: { annotations: { [FATE]: value } } } } });

test('a scale-up whose pods never get ready passes its deadline: Progressing False, one Warning, pods kept', async () => {
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest('stuck.yaml', [manifest('stuck', 2, { progressDeadlineSeconds: 3 }, 'never-ready')]),
  ]);
  await env.kubectl(['wait', 'ps/stuck', '--for=condition=Progressing=False', '--timeout=40s']);
  const progressing = conditionOf('stuck', 'Progressing');
  assert.equal(progressing?.reason, 'ProgressDeadlineExceeded');
  assert.match(
    progressing?.message ?? '',
    /made no progress for 3s \(progressDeadlineSeconds\): 2 pods not ready/,
  );
  const available = conditionOf('stuck', 'Available');
  assert.deepEqual([available?.status, available?.reason], ['False', 'MinimumReplicasUnavailable']);
  const events = await warnings('stuck');
  assert.equal(events.length, 1, 'one Event');
  assert.equal(events[0]?.type, 'Warning');
  assert.equal(events[0]?.message, progressing?.message);
  assert.equal(activePods('stuck').length, 2, 'the pods stay');

  // A new template (the fate removed) is progress: a rollout, with a fresh clock, that completes.
  await env.kubectl(['patch', 'ps', 'stuck', '--type=merge', '-p', fatePatch(null)]);
  await env.kubectl(['wait', 'ps/stuck', '--for=condition=Available', '--timeout=40s']);
  await env.waitFor('stuck to complete its rollout', () => {
    const p = conditionOf('stuck', 'Progressing');
    return p?.status === 'True' && p.reason === 'PodSetAvailable' ? [] : [`Progressing ${JSON.stringify(p)}`];
  });
  assert.equal((await warnings('stuck')).length, 1, 'no further Warning');
});

test('a rollout whose pods never get ready stalls within its bounds and stays there; Available stays True', async () => {
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest('web.yaml', [manifest('web', 4, { progressDeadlineSeconds: 4 })]),
  ]);
  await env.waitConverged(['web'], { timeoutMs: 60_000 });
  await env.kubectl(['patch', 'ps', 'web', '--type=merge', '-p', fatePatch('never-ready')]);
  // Progressing was True (PodSetAvailable) before the patch: wait for the rollout to be under way first,
  // so that the wait below sees the stall, not a state before the patch.
  await env.waitFor('the rollout to start', () => {
    const p = conditionOf('web', 'Progressing');
    return p?.reason === 'RollingOut' ? [] : [`Progressing ${JSON.stringify(p)}`];
  });
  await env.kubectl(['wait', 'ps/web', '--for=condition=Progressing=False', '--timeout=40s']);
  const progressing = conditionOf('web', 'Progressing');
  assert.equal(progressing?.reason, 'ProgressDeadlineExceeded');
  assert.match(progressing?.message ?? '', /^Rollout of template [0-9a-f]{10} has made no progress for 4s/);
  assert.equal((await warnings('web')).length, 1);
  // 4 replicas, maxSurge 1, maxUnavailable 1: 3 old pods ready, 2 new ones not; nothing rolled back.
  const active = activePods('web');
  assert.equal(active.length, 5);
  assert.equal(active.filter(isReady).length, 3);
  // 3 available >= 4 - 1: Available, as a Deployment would be.
  await env.kubectl(['wait', 'ps/web', '--for=condition=Available', '--timeout=5s']);
  assert.equal(conditionOf('web', 'Available')?.reason, 'MinimumReplicasAvailable');
});

test('kubectl wait --for=condition=Available on a scale-up: Available stays True within maxUnavailable', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('grow.yaml', [manifest('grow', 4, {})])]);
  await env.waitConverged(['grow'], { timeoutMs: 60_000 });
  const seen: string[] = [];
  const stop = env.sim.cluster.subscribe((ev) => {
    if (ev.resource !== 'podsets.podset.io' || ev.object.metadata.name !== 'grow') return;
    const c = (ev.object as unknown as { status?: { conditions?: Condition[] } }).status?.conditions?.find(
      (x) => x.type === 'Available',
    );
    if (c) seen.push(`${c.status} ${c.reason}`);
  });
  try {
    // 4 → 5: 4 available >= 5 - 1 all along.
    await env.kubectl(['scale', 'ps', 'grow', '--replicas=5']);
    await env.kubectl(['wait', 'ps/grow', '--for=condition=Available', '--timeout=30s']);
    await env.waitConverged(['grow'], { timeoutMs: 60_000 });
  } finally {
    stop();
  }
  assert.ok(seen.length > 0, 'the PodSet was written during the scale-up');
  assert.deepEqual(
    [...new Set(seen)],
    ['True MinimumReplicasAvailable'],
    'Available never went False on the way',
  );
});
