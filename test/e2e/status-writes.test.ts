// What a new PodSet costs in API writes on kube-sim's kubelet lifecycle (a scheduler's binding, then a
// kubelet's separate status writes, spread in time as on a cluster), counted from kube-sim's audit and a
// watch of the PodSets: its pods' creates, one finalizer patch, one ControllerRevision, one Event, and
// status writes that each move something a user reads (a count) — never a second write of the counts the
// last one wrote. Real watcher and worker processes, kube-sim over HTTP, real Redis, real kubectl.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';
import { watchCollection } from './support/watch.ts';

const COUNT = 4;
const REPLICAS = 6;
const names = Array.from({ length: COUNT }, (_, i) => `sw-${i}`);
const WRITES = new Set(['create', 'update', 'patch', 'delete']);

let env: OperatorEnv;
before(async () => {
  // The default worker settings (a 30 s requeue while pods get ready), so that only watch events bring
  // the passes after the first, as in a user's install.
  env = await startEnv({
    name: 'status-writes',
    controllerOptions: { podLifecycle: 'kubelet' },
    workerEnv: { REQUEUE_PENDING_SECONDS: '30' },
  });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
});
after(async () => {
  await env?.close();
});

interface Status {
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
}
const countsOf = (s: Status | undefined): string =>
  JSON.stringify([s?.replicas, s?.readyReplicas, s?.updatedReplicas, s?.availableReplicas]);

test(`${COUNT} new PodSets × ${REPLICAS} on the kubelet lifecycle: each status write moves a count; one finalizer patch, revision and Event each`, async () => {
  // Every status each PodSet was given, in order, from a watch started before they exist.
  const seen = new Map<string, string[]>(names.map((n) => [n, []]));
  const path = '/apis/podset.io/v1/namespaces/default/podsets';
  const listed = await fetch(`${env.sim.url}${path}`, {
    headers: { authorization: `Bearer ${env.sim.tokens.admin}` },
  });
  const rv = ((await listed.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const since = new Date().toISOString();
  const watch = watchCollection<{ type: string; object: { metadata: { name: string }; status?: Status } }>(
    env,
    path,
    rv,
    (ev) => {
      const list = seen.get(ev.object.metadata.name);
      // Before the first status write (the finalizer's patch) there are no counts; after it, a metadata
      // write shows the status unchanged: only changed counts are kept.
      const counts = countsOf(ev.object.status);
      if (list === undefined || ev.object.status?.replicas === undefined) return;
      if (list.at(-1) !== counts) list.push(counts);
    },
    (err) => assert.fail(`watch failed: ${String(err)}`),
  );
  try {
    await env.kubectl([
      'apply',
      '-f',
      env.writeManifest(
        'sw.yaml',
        names.map((n) => podSetManifest(n, REPLICAS)),
      ),
    ]);
    await env.waitConverged(names, { timeoutMs: 90_000 });
    // Let a pass the last readiness brought, and its watch event, land.
    await new Promise((r) => setTimeout(r, 2_500));
  } finally {
    watch.stop();
  }

  const writes = env.sim.audit
    .query({ since, namespace: 'default' })
    .filter((e) => e.user === 'worker' && WRITES.has(e.verb) && e.code < 300);
  const count = (resource: string, verb: string, subresource = '') =>
    writes.filter((e) => e.resource === resource && e.verb === verb && e.subresource === subresource).length;
  assert.equal(count('pods', 'create'), COUNT * REPLICAS, 'one create per pod');
  assert.equal(count('podsets', 'patch'), COUNT, 'one metadata patch per PodSet (finalizer + revision)');
  assert.equal(count('controllerrevisions', 'create'), COUNT, 'one revision per PodSet');
  assert.equal(count('events', 'create') + count('events', 'patch'), COUNT, 'one Event per PodSet');

  // Each status write is news: the first counts the pods just created, each later one moves a count.
  const statusWrites = count('podsets', 'update', 'status');
  const distinct = [...seen.values()].reduce((n, list) => n + list.length, 0);
  for (const [name, list] of seen) {
    const [first, last] = [list[0], list.at(-1)];
    assert.equal(
      first,
      countsOf({ replicas: REPLICAS, readyReplicas: 0, updatedReplicas: REPLICAS, availableReplicas: 0 }),
      `${name}: ${list.join(' → ')}`,
    );
    assert.equal(
      last,
      countsOf({
        replicas: REPLICAS,
        readyReplicas: REPLICAS,
        updatedReplicas: REPLICAS,
        availableReplicas: REPLICAS,
      }),
      name,
    );
  }
  assert.equal(
    statusWrites,
    distinct,
    `every status write moves a count: ${statusWrites} writes, ${distinct} distinct counts (${[...seen]
      .map(([n, l]) => `${n}: ${l.join(' → ')}`)
      .join('; ')})`,
  );
});
