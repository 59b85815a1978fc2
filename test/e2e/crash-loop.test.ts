// A PodSet whose containers keep failing, as a user sees it on a cluster: its pods crash-loop (Running, not
// ready, restartCount rising, CrashLoopBackOff between restarts — a kubelet never fails a restartPolicy
// Always pod), and the PodSet reports them as a ReplicaSet and a Deployment would: its replicas there, none
// ready or available, Available False; the pods are not replaced, since they have not ended. Real watcher
// and worker processes, kube-sim over HTTP, real Redis, real kubectl.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject } from '@podset/kube-sim';
import { activePodsOf } from './support/check.ts';
import { FAST_PODS, applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'crash-loop', controllerOptions: { ...FAST_PODS, crashLoopBackoffMs: 200 } });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
});
after(async () => {
  await env?.close();
});

interface ContainerStatus {
  restartCount?: number;
  state?: { waiting?: { reason?: string } };
}
const restarts = (p: KubeObject): number =>
  ((p.status as { containerStatuses?: ContainerStatus[] } | undefined)?.containerStatuses ?? [])[0]
    ?.restartCount ?? 0;

test('a crash-looping PodSet: its pods Running and restarting, 0 ready, 0 available, Available False, none replaced', async () => {
  const m = podSetManifest('crashy', 2);
  (m.spec as { template: { metadata: Record<string, unknown> } }).template.metadata.annotations = {
    'kube-sim.podset.io/fate': 'fail',
  };
  await env.kubectl(['apply', '-f', env.writeManifest('crashy.yaml', [m])]);
  const pods = () => activePodsOf(env.podSet('crashy')!, env.pods());
  await env.waitFor('both pods to have restarted twice', () => {
    const list = env.podSet('crashy') ? pods() : [];
    if (list.length === 2 && list.every((p) => restarts(p) >= 2)) return [];
    return [`${list.length} pods`, ...list.map((p) => `${p.metadata.name}: ${restarts(p)} restarts`)];
  });
  for (const p of pods()) assert.equal((p.status as { phase?: string }).phase, 'Running');
  const names = pods().map((p) => p.metadata.name ?? '');
  const table = (await env.kubectl(['get', 'pods', ...names, '--no-headers'])).stdout;
  assert.match(table, /0\/1\s+(CrashLoopBackOff|Error)\s+\d+ \(/);

  // The operator has seen the restarts (each one a pod update) and reports what a ReplicaSet would.
  await env.waitFor('the PodSet status to show its 2 pods, none ready', () => {
    const s = (env.podSet('crashy')?.status ?? {}) as Record<string, unknown>;
    return s.replicas === 2 && (s.readyReplicas ?? 0) === 0 && (s.availableReplicas ?? 0) === 0
      ? []
      : [JSON.stringify(s)];
  });
  const available = (
    env.podSet('crashy')?.status as { conditions?: { type: string; status: string }[] } | undefined
  )?.conditions?.find((c) => c.type === 'Available');
  assert.equal(available?.status, 'False');
  // Crash-looping pods are active: kept and counted, not replaced (a Failed pod would be).
  const creates = env.sim.audit
    .query({ verb: 'create', resource: 'pods', namespace: 'default', code: 201 })
    .filter((e) => e.userAgent.startsWith('podset-worker'));
  assert.equal(creates.length, 2, `pod creates: ${creates.map((e) => e.name).join(', ')}`);
});
