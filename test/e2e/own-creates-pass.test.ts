// The watch events of a worker's own creates bring no pass when the pass that made them needs no follow-up
// (its status already says what a pass finding them would): a scale-up costs the pass that creates and
// the pass their readiness brings, not a third in between. Anything else still requests (a deleted pod
// here; the fold's cases in libs/state's projection-quiet test). Counted from the workers' logs (reconcile starts). Real watcher and worker processes,
// kube-sim over HTTP, real Redis.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { applyCrd, podSetManifest, sleep, startEnv, type OperatorEnv } from './support/harness.ts';

const envs: OperatorEnv[] = [];
after(async () => {
  for (const env of envs) await env.close();
});

async function operator(name: string, controllerOptions: Record<string, unknown>): Promise<OperatorEnv> {
  // A requeue far off, so that only watch events bring the passes after the first. No hold of a pod's
  // ADDED at all: the worker reserves its creates before it sends them, so an ADDED folded before the worker
  // records its pod's name (a loaded machine records late) is met as awaited all the same.
  const env = await startEnv({
    name,
    controllerOptions,
    workerEnv: { REQUEUE_PENDING_SECONDS: '300' },
    watcherEnv: { QUIET_EVENT_HOLD_MS: '0' },
  });
  envs.push(env);
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
  // Its first relist done, so that the PodSet's first request is its own ADDED event's, not the relist's.
  await env.waitFor('the watcher relisted', () =>
    readFileSync(path.join(env.logDir, 'watcher-0.log'), 'utf8').split('"msg":"relisted"').length > 2
      ? []
      : ['not yet'],
  );
  return env;
}

async function apply(env: OperatorEnv, replicas: number): Promise<void> {
  await env.kubectl(['apply', '-f', env.writeManifest('web.yaml', [podSetManifest('web', replicas)])]);
}

/** Waits for `n` live pods of web, then lets any pass their events would bring (and its events) land. */
async function settledWith(env: OperatorEnv, n: number): Promise<void> {
  await env.waitFor(`${n} pods`, () => {
    const live = env.pods().filter((p) => p.metadata.deletionTimestamp === undefined).length;
    return live === n ? [] : [`${live} pods`];
  });
  await sleep(3_000);
}

test('pods that never get ready: a scale-up is one pass; a deleted pod still brings its own', async () => {
  const env = await operator('own-creates-off', { podLifecycle: 'off' });
  const since = Date.now();
  await apply(env, 5);
  await settledWith(env, 5);
  assert.equal(env.reconcilesSince('default/web', since), 1, 'the pass that created them, no other');

  await apply(env, 8);
  await settledWith(env, 8);
  assert.equal(env.reconcilesSince('default/web', since), 2, 'the scale-up: one pass');
  // A pod deleted by someone else: its DELETED requests, and the pass creates its replacement.
  const victim = env.pods()[0]!.metadata.name!;
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
  await env.waitFor('the replacement', () =>
    env.pods().some((p) => p.metadata.name === victim) ? ['victim still there'] : [],
  );
  await settledWith(env, 8);
  assert.ok(env.reconcilesSince('default/web', since) >= 3, 'the deletion brought a pass');
});
