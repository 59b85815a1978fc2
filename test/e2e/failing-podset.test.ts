// A PodSet whose pods the API always rejects (a template label key that is not a valid label) must
// cost a bounded number of API calls: MAX_ATTEMPTS rejected creates, then it is parked — no status
// churn, no storm of retries woken up by the operator's own status writes — until its backoff ends or
// its spec changes. Real watcher and worker processes, kube-sim over HTTP, real Redis, real kubectl.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AuditEntry } from '@podset/kube-sim';
import { FAST_PODS, applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const MAX_ATTEMPTS = 3;
let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'failing', controllerOptions: FAST_PODS });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  // Parked for an hour: within this test only a spec change may retry it.
  env.startWorker('worker-0', { MAX_ATTEMPTS: String(MAX_ATTEMPTS), PARKED_RETRY_SECONDS: '3600' });
});
after(async () => {
  await env?.close();
});

const byWorker = (e: AuditEntry) => e.userAgent.startsWith('podset-worker');
const rejectedCreates = () =>
  env.sim.audit.query({ verb: 'create', resource: 'pods', namespace: 'default', code: 422 }).length;
const statusWrites = () =>
  env.sim.audit.query({ resource: 'podsets', subresource: 'status', name: 'bad' }).filter(byWorker).length;
const failure = () => {
  const conditions = (env.podSet('bad')?.status as { conditions?: Record<string, string>[] } | undefined)
    ?.conditions;
  return conditions?.find((c) => c.type === 'ReplicaFailure');
};

test('a PodSet the API keeps rejecting: MAX_ATTEMPTS creates, one status write, parked until its spec changes', async () => {
  const bad = podSetManifest('bad', 3, { labels: { 'bad key!': 'x' } });
  await env.kubectl(['apply', '-f', env.writeManifest('bad.yaml', [bad])]);
  // An object is in the store before the response that created it ends, and the audit log records a
  // request when its response ends: wait until every Event seen has its create in the audit log too, so
  // the barrier below starts after the worker's last write of this phase.
  const eventsOfBad = () =>
    env.sim.cluster
      .list('events', 'default')
      .filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'bad');
  await env.waitFor('the PodSet to be parked (a ReconcileFailed Event), its Events all answered', () => {
    const events = eventsOfBad();
    const answered = env.sim.audit.query({ verb: 'create', resource: 'events' }).filter(byWorker).length;
    if (!events.some((e) => e.reason === 'ReconcileFailed'))
      return [`${rejectedCreates()} rejected creates so far`];
    return answered >= events.length ? [] : [`${events.length} Events, ${answered} creates answered`];
  });
  assert.equal(failure()?.message, `1 of 3 pod creates rejected: 422 Invalid`);

  // A barrier instead of a sleep: a label change requests a reconcile; once the worker has reconciled
  // the PodSet after it, the parked key has had its chance to act, and must have written nothing.
  // The audit log's own mark, not a clock reading: a write answered in the millisecond the clock was
  // read would count as after the barrier.
  const sinceMs = Date.now();
  const barrier = env.sim.audit.mark();
  await env.kubectl(['label', 'ps', 'bad', 'touched=yes']);
  await env.waitFor('the worker to reconcile the PodSet after the label change', () =>
    env.reconcilesSince('default/bad', sinceMs) > 0 ? [] : ['no reconcile yet'],
  );
  assert.equal(rejectedCreates(), MAX_ATTEMPTS, 'one rejected create per attempt, then parked');
  assert.equal(statusWrites(), 1, 'ReplicaFailure written once: its message is the same every attempt');
  const writesAfterBarrier = env.sim.audit
    .query({ after: barrier })
    .filter(byWorker)
    .filter((e) => e.verb !== 'get' && e.verb !== 'list' && e.verb !== 'watch');
  assert.deepEqual(writesAfterBarrier, [], 'a parked key writes nothing');

  // A spec change unparks it at once (the hour-long backoff does not apply to a new generation).
  await env.kubectl(['patch', 'ps', 'bad', '--type=merge', '-p', '{"spec":{"replicas":2}}']);
  await env.waitFor('a create attempt for the new generation', () =>
    rejectedCreates() > MAX_ATTEMPTS ? [] : ['no new create yet'],
  );
  // Its status write follows the rejected create: wait for it rather than read between the two.
  await env.waitFor('ReplicaFailure for the new generation', () =>
    failure()?.message === `1 of 2 pod creates rejected: 422 Invalid` ? [] : [`saw ${failure()?.message}`],
  );

  // Fixed: the pods are created and ReplicaFailure is cleared.
  const good = podSetManifest('bad', 2);
  await env.kubectl(['apply', '-f', env.writeManifest('good.yaml', [good])]);
  await env.waitConverged(['bad']);
  assert.equal(failure(), undefined);
});
