// What a user sees of a PodSet's status while it scales, and its Progressing condition, as a
// ReplicaSet's and a Deployment's: a scale to 2,000 pods (several passes, each capped at what the
// worker's client rate limit sends in about two seconds) shows status.replicas climbing pass by pass on a watch of the PodSet, and falling pass by pass on the
// way back to 0, with Progressing True throughout; once done, Progressing stays True (PodSetAvailable),
// so `kubectl wait --for=condition=Progressing=False` times out on a healthy PodSet and returns on one
// past its progress deadline. Real watcher and worker processes, kube-sim over HTTP, real Redis, real
// kubectl. A scale the API refuses costs one create per attempt and counts none.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FAST_PODS, applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';
import { watchCollection } from './support/watch.ts';

/** The worker's client rate limit in this test. */
const KUBE_QPS = 150;
/**
 * The most pods one pass creates or deletes at that limit (what the client sends in about two seconds):
 * a status written after every pass moves by at most this much from one version to the next.
 */
const PASS_PODS = KUBE_QPS * 2;

let env: OperatorEnv;
before(async () => {
  // 150 requests/s: passes of 300 pods, about two seconds each, so that the test takes seconds, not
  // the minute and a half of the default 50.
  env = await startEnv({
    name: 'status-during-scale',
    controllerOptions: { ...FAST_PODS },
    // Two attempts before a refused PodSet is parked, so that the last test does not wait out more backoff.
    workerEnv: { KUBE_QPS: String(KUBE_QPS), MAX_ATTEMPTS: '2' },
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
}
interface Status {
  replicas?: number;
  readyReplicas?: number;
  conditions?: Condition[];
}
/** One version of the PodSet on the watch: its status. */
interface Seen {
  status: Status;
}

const progressingOf = (s: Status) => s.conditions?.find((c) => c.type === 'Progressing');

/** Every version of PodSet `name` the API sends on a watch from resourceVersion `rv`, until stop(). */
function watchPodSet(name: string, rv: string): { seen: Seen[]; stop(): void } {
  const seen: Seen[] = [];
  const watch = watchCollection<{ type: string; object: { status?: Status } }>(
    env,
    '/apis/podset.io/v1/namespaces/default/podsets',
    rv,
    (ev) => {
      if (ev.type === 'MODIFIED') seen.push({ status: ev.object.status ?? {} });
    },
    (err) => seen.push({ status: { conditions: [{ type: String(err), status: '' }] } }),
    `&fieldSelector=metadata.name%3D${name}`,
  );
  return { seen, stop: () => watch.stop() };
}

/**
 * Scales `name` to `replicas` with kubectl and returns what the watch saw until every pod is there and
 * ready, and status.replicas before the scale.
 */
async function scaleWatched(name: string, replicas: number): Promise<{ seen: Seen[]; fromReplicas: number }> {
  const before = env.podSet(name) as unknown as { metadata: { resourceVersion: string }; status?: Status };
  const rv = before.metadata.resourceVersion;
  const fromReplicas = before.status?.replicas ?? 0;
  const watch = watchPodSet(name, rv);
  try {
    await env.kubectl(['scale', 'ps', name, `--replicas=${replicas}`]);
    await env.waitFor(
      `${name}'s status to say ${replicas} ready`,
      () => {
        const last = watch.seen.at(-1)?.status;
        return last?.replicas === replicas && (last.readyReplicas ?? 0) === replicas
          ? []
          : [`last status on the watch: ${JSON.stringify({ ...last, conditions: undefined })}`];
      },
      // Bounds a hang only: a scale on a busy machine may take minutes.
      { timeoutMs: 300_000, intervalMs: 100 },
    );
    return { seen: [...watch.seen], fromReplicas };
  } finally {
    watch.stop();
  }
}

/** The replicas values the watch showed before the first that reached `target`, without repeats. */
function stepsBefore(seen: readonly Seen[], target: number): number[] {
  const steps: number[] = [];
  for (const s of seen) {
    const r = s.status.replicas ?? 0;
    if (r === target) break;
    if (steps.at(-1) !== r) steps.push(r);
  }
  return steps;
}

/**
 * The largest change of status.replicas from the status before the scale to the first on the watch, or
 * between two in a row, until `target` was shown. A status frozen for a whole scale (the fault this
 * guards against) jumps by the whole scale; one written after every pass moves by a pass at most. Counted
 * in pods, not milliseconds, so that a busy machine (slower passes) cannot fail it.
 */
function largestStep(seen: readonly Seen[], fromReplicas: number, target: number): number {
  let last = fromReplicas;
  let largest = 0;
  for (const s of seen) {
    const r = s.status.replicas ?? 0;
    largest = Math.max(largest, Math.abs(r - last));
    last = r;
    if (r === target) break;
  }
  return largest;
}

test(
  'a scale to 2,000 pods and back to 0: status.replicas moves in steps on a watch, Progressing True throughout',
  { timeout: 900_000 },
  async () => {
    await env.kubectl(['apply', '-f', env.writeManifest('big.yaml', [podSetManifest('big', 10)])]);
    await env.waitConverged(['big'], { timeoutMs: 60_000 });

    const up = await scaleWatched('big', 2000);
    const upSteps = stepsBefore(up.seen, 2000);
    assert.ok(
      upSteps.filter((r) => r > 10).length >= 2 && upSteps.length > 2,
      `status.replicas climbs in steps before 2000: ${upSteps.join(' → ')}`,
    );
    assert.ok(
      upSteps.every((r, i) => i === 0 || r > upSteps[i - 1]!),
      `never falls on the way up: ${upSteps.join(' → ')}`,
    );
    const upStep = largestStep(up.seen, up.fromReplicas, 2000);
    assert.ok(
      upStep <= PASS_PODS,
      `status.replicas moves by one pass (≤ ${PASS_PODS}) at most on the way up, saw ${upStep}: ${upSteps.join(' → ')}`,
    );
    for (const s of up.seen) {
      const p = progressingOf(s.status);
      assert.equal(p?.status, 'True', `Progressing on the way up: ${JSON.stringify(p)}`);
    }
    assert.equal(progressingOf(up.seen.at(-1)!.status)?.reason, 'PodSetAvailable');

    const down = await scaleWatched('big', 0);
    const downSteps = stepsBefore(down.seen, 0);
    assert.ok(
      downSteps.filter((r) => r < 2000).length >= 2 && downSteps.length > 2,
      `status.replicas falls in steps before 0: ${downSteps.join(' → ')}`,
    );
    const downStep = largestStep(down.seen, down.fromReplicas, 0);
    assert.ok(
      downStep <= PASS_PODS,
      `status.replicas moves by one pass (≤ ${PASS_PODS}) at most on the way down, saw ${downStep}: ${downSteps.join(' → ')}`,
    );
    for (const s of down.seen) assert.equal(progressingOf(s.status)?.status, 'True');
    await env.kubectl(['delete', 'ps', 'big', '--wait=true', '--timeout=60s']);
  },
);

test('kubectl wait: Progressing=False times out on a healthy PodSet, Progressing=True returns; a stalled one is False', async () => {
  await env.kubectl(['apply', '-f', env.writeManifest('fine.yaml', [podSetManifest('fine', 3)])]);
  await env.waitConverged(['fine'], { timeoutMs: 60_000 });
  await env.kubectl(['wait', 'ps/fine', '--for=condition=Progressing=True', '--timeout=10s']);
  const stalled = await env.kubectl(
    ['wait', 'ps/fine', '--for=condition=Progressing=False', '--timeout=3s'],
    {
      allowFail: true,
    },
  );
  assert.notEqual(
    stalled.code,
    0,
    `a healthy PodSet is not Progressing=False: ${stalled.stdout}${stalled.stderr}`,
  );
  assert.match(stalled.stderr, /timed out/);

  const stuck = podSetManifest('stuck', 2);
  const spec = stuck.spec as {
    progressDeadlineSeconds?: number;
    template: { metadata: Record<string, unknown> };
  };
  spec.progressDeadlineSeconds = 3;
  spec.template.metadata.annotations = { 'kube-sim.podset.io/fate': 'never-ready' };
  await env.kubectl(['apply', '-f', env.writeManifest('stuck.yaml', [stuck])]);
  await env.kubectl(['wait', 'ps/stuck', '--for=condition=Progressing=False', '--timeout=40s']);
  const reason = progressingOf((env.podSet('stuck') as unknown as { status: Status }).status)?.reason;
  assert.equal(reason, 'ProgressDeadlineExceeded');
});

test('a scale to 2,000 pods the API refuses costs a few creates, not a pass of them, and counts none', async () => {
  // A label key the API refuses on every pod: each attempt's slow start stops at its first batch of one.
  const refused = podSetManifest('refused', 2000, { labels: { 'bad key!': 'x' } });
  await env.kubectl(['apply', '-f', env.writeManifest('refused.yaml', [refused])]);
  const rejected = () =>
    env.sim.audit.query({ verb: 'create', resource: 'pods', namespace: 'default', code: 422 }).length;
  const parked = () =>
    env.sim.cluster
      .list('events', 'default')
      .some(
        (e) =>
          (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'refused' &&
          (e as { reason?: string }).reason === 'ReconcileFailed',
      );
  await env.waitFor('the PodSet to fail for good (ReconcileFailed) after its attempts', () =>
    parked() ? [] : [`${rejected()} rejected creates so far`],
  );
  const status = (env.podSet('refused') as unknown as { status: Status & { conditions: Condition[] } })
    .status;
  assert.ok(rejected() <= 10, `one rejected create per attempt, saw ${rejected()}`);
  assert.equal(status.replicas, 0, 'no pod made, none counted');
  assert.equal(status.conditions.find((c) => c.type === 'ReplicaFailure')?.status, 'True');
});
