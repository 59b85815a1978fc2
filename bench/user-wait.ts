// What users wait for while the operator collapses status-only changes: on the e2e harness (kube-sim's
// kubelet lifecycle, real watcher and one worker with their default settings, real Redis, real kubectl), the
// time of a 10-pod rolling update (a template change until the status says 10 updated, ready and no more),
// the worker's REQUEUE_PENDING_SECONDS at its default (30 s, not the harness's 0.5 s: only watch events bring
// the passes, as in a user's install), and a scale 0 → N as `kubectl get ps -w` shows it (the READY values a watch of the PodSet sees, the
// longest wait between two, the time until N ready). Prints one JSON line per measurement.
//   node_modules/.bin/node bench/user-wait.ts [--rollouts 2] [--scale 300] [--scales 2]
import { parseArgs } from 'node:util';
import { applyCrd, podSetManifest, startEnv } from '../test/e2e/support/harness.ts';
import { watchCollection } from '../test/e2e/support/watch.ts';

const { values } = parseArgs({
  options: {
    rollouts: { type: 'string', default: '2' },
    scale: { type: 'string', default: '300' },
    scales: { type: 'string', default: '2' },
  },
});

interface Status {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
}
interface PodSetSeen {
  metadata: { resourceVersion: string; generation?: number };
  status?: Status;
}

const env = await startEnv({
  name: 'user-wait',
  controllerOptions: { podLifecycle: 'kubelet' },
  workerEnv: { REQUEUE_PENDING_SECONDS: '30' },
});
try {
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
  const path = '/apis/podset.io/v1/namespaces/default/podsets';

  // Rolling updates of 10 pods: from the patch until the status shows 10 updated, 10 ready, 10 in all.
  await env.kubectl(['apply', '-f', env.writeManifest('roll.yaml', [podSetManifest('roll', 10)])]);
  await env.waitConverged(['roll'], { timeoutMs: 120_000 });
  for (let i = 0; i < Number(values.rollouts); i++) {
    const started = Date.now();
    const patch = { spec: { template: { metadata: { annotations: { 'bench/round': String(i) } } } } };
    await env.kubectl(['patch', 'ps', 'roll', '--type', 'merge', '-p', JSON.stringify(patch)]);
    await env.waitFor(
      'the rollout to complete',
      () => {
        const ps = env.podSet('roll') as unknown as PodSetSeen;
        const s = ps.status;
        const done =
          (s?.observedGeneration ?? 0) >= (ps.metadata.generation ?? 0) &&
          s?.updatedReplicas === 10 &&
          s.readyReplicas === 10 &&
          s.replicas === 10;
        return done ? [] : [JSON.stringify(s ?? {})];
      },
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    console.log(JSON.stringify({ rollout: i, pods: 10, seconds: (Date.now() - started) / 1000 }));
  }

  // Scales 0 → N: the READY values a watch shows, and the longest wait between two.
  const target = Number(values.scale);
  for (let i = 0; i < Number(values.scales); i++) {
    const name = `big-${i}`;
    await env.kubectl(['apply', '-f', env.writeManifest(`${name}.yaml`, [podSetManifest(name, 0)])]);
    await env.waitConverged([name], { timeoutMs: 60_000 });
    const rv = (env.podSet(name) as unknown as PodSetSeen).metadata.resourceVersion;
    const steps: { ms: number; ready: number }[] = [];
    const started = Date.now();
    const watch = watchCollection<{ type: string; object: PodSetSeen }>(
      env,
      path,
      rv,
      (ev) => {
        const ready = ev.object.status?.readyReplicas ?? 0;
        if (ready !== (steps.at(-1)?.ready ?? 0)) steps.push({ ms: Date.now() - started, ready });
      },
      (err) => console.error(`watch failed: ${String(err)}`),
      `&fieldSelector=metadata.name%3D${name}`,
    );
    try {
      await env.kubectl(['scale', 'ps', name, `--replicas=${target}`]);
      await env.waitFor(
        `${name} ${target} ready on the watch`,
        () => (steps.at(-1)?.ready === target ? [] : [JSON.stringify(steps.at(-1) ?? {})]),
        { timeoutMs: 300_000, intervalMs: 20 },
      );
    } finally {
      watch.stop();
    }
    // Between two READY values the watch showed (the wait for the first is the scheduler's and kubelets').
    let longest = 0;
    for (let j = 1; j < steps.length; j++) longest = Math.max(longest, steps[j]!.ms - steps[j - 1]!.ms);
    console.log(
      JSON.stringify({
        scale: i,
        to: target,
        readySteps: steps.length,
        firstReadyS: (steps[0]?.ms ?? 0) / 1000,
        longestGapS: longest / 1000,
        allReadyS: (steps.at(-1)?.ms ?? 0) / 1000,
        ready: steps.map((s) => s.ready).join(' '),
      }),
    );
    await env.kubectl(['delete', 'ps', name, '--wait=false']);
  }
} finally {
  await env.close();
}
