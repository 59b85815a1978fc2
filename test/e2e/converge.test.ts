// 50 PodSets with 0..10 replicas, created with kubectl as a user would, converge through the whole
// operator (watcher → BullMQ on a real Redis → two worker processes → kube-sim over HTTP). Prints
// how long it took and how many API calls it cost per converged pod, from kube-sim's audit log.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { NAME_LABEL, parseTable } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const COUNT = 50;
const WORKERS = 2;
const names = Array.from({ length: COUNT }, (_, i) => `ps-${String(i).padStart(2, '0')}`);
/** Mixed replicas 0..10, each value used (i·7 mod 11 walks through all of them). */
const replicasOf = (i: number) => (i * 7) % 11;
const totalPods = names.reduce((sum, _, i) => sum + replicasOf(i), 0);
const OPERATOR = ['watcher', 'worker'];
const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

let env: OperatorEnv;
before(async () => {
  env = await startEnv({ name: 'converge' });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  for (let i = 0; i < WORKERS; i++) env.startWorker(`worker-${i}`);
});
after(async () => {
  await env?.close();
});

test(`${COUNT} PodSets with 0..10 replicas converge; kubectl get ps shows DESIRED CURRENT UP-TO-DATE AVAILABLE AGE`, async () => {
  const file = env.writeManifest(
    'fifty.yaml',
    names.map((n, i) => podSetManifest(n, replicasOf(i))),
  );
  const since = new Date().toISOString();
  const t0 = Date.now();
  await env.kubectl(['apply', '-f', file]);
  await env.waitFor(
    `${COUNT} PodSets (${totalPods} pods) to converge, with no other pods left in the namespace`,
    () => {
      const problems = env.problems(names);
      const pods = env.pods().filter((p) => p.metadata.labels?.[NAME_LABEL] !== undefined);
      if (pods.length !== totalPods) {
        problems.push(`pods labelled ${NAME_LABEL}: expected ${totalPods}, saw ${pods.length}`);
      }
      return problems;
    },
    { timeoutMs: 240_000, intervalMs: 250 },
  );
  const convergedMs = Date.now() - t0;
  env.assertAllRunning();

  // The user's view: kubectl's printer columns.
  const table = await env.kubectl(['get', 'ps']);
  const rows = parseTable(table.stdout);
  const header = table.stdout.split('\n')[0] ?? '';
  assert.match(header, /^NAME\s+DESIRED\s+CURRENT\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s*$/, `header: ${header}`);
  assert.equal(rows.length, COUNT, table.stdout);
  for (const [i, n] of names.entries()) {
    const row = rows.find((r) => r.NAME === n);
    const want = String(replicasOf(i));
    assert.deepEqual(
      row && {
        DESIRED: row.DESIRED,
        CURRENT: row.CURRENT,
        'UP-TO-DATE': row['UP-TO-DATE'],
        AVAILABLE: row.AVAILABLE,
      },
      { DESIRED: want, CURRENT: want, 'UP-TO-DATE': want, AVAILABLE: want },
      `kubectl get ps row of ${n}`,
    );
    assert.match(row?.AGE ?? '', /^\d+(s|m)/, `AGE of ${n}`);
  }
  // The short name and the `all` category reach the same objects.
  const viaAll = await env.kubectl(['get', 'all', '-o', 'name']);
  for (const n of names) assert.ok(viaAll.stdout.includes(`podset.podset.io/${n}\n`), `get all lists ${n}`);

  // The cost, from kube-sim's audit log (watch requests are logged when they end, so the watches
  // still open are not in these figures; every LIST, GET and write is).
  const entries = env.sim.audit.query({ since }).filter((e) => OPERATOR.includes(e.user));
  const byKey = new Map<string, number>();
  for (const e of entries) {
    const k = `${e.user.padEnd(8)} ${e.verb.padEnd(7)} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    byKey.set(k, (byKey.get(k) ?? 0) + 1);
  }
  const writes = entries.filter((e) => WRITES.has(e.verb)).length;
  const perPod = (n: number) => (totalPods === 0 ? 'n/a' : (n / totalPods).toFixed(2));
  console.log(
    [
      `e2e converge: ${COUNT} PodSets, ${totalPods} pods, 1 watcher + ${WORKERS} workers (concurrency 8, KUBE_QPS 50)`,
      `  time to converge (kubectl apply → every status right and every pod ready): ${(convergedMs / 1000).toFixed(1)} s`,
      `  API calls by the operator: ${entries.length} total (${perPod(entries.length)} per converged pod), ` +
        `${writes} writes (${perPod(writes)} per converged pod)`,
      ...[...byKey.entries()].sort().map(([k, v]) => `    ${k.padEnd(40)} ${String(v).padStart(6)}`),
    ].join('\n'),
  );
  // The pod creates are exactly the pods wanted: nothing created twice, nothing created to be deleted.
  const podCreates = entries.filter(
    (e) => e.verb === 'create' && e.resource === 'pods' && e.code === 201,
  ).length;
  assert.equal(podCreates, totalPods, 'successful pod creates by the operator');
  const podDeletes = entries.filter((e) => e.verb === 'delete' && e.resource === 'pods').length;
  assert.equal(podDeletes, 0, 'pod deletes by the operator while only scaling up');
});
