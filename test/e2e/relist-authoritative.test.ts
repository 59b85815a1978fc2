// A relist is authoritative: after the cluster goes back in time (kube-sim restarted from an older copy of
// its data dir, as etcd restored from a backup; or from one that holds no PodSet, as an API server restarted
// without its data), the projection in Redis is exactly what the API lists — older resourceVersions, other
// UIDs, and nothing of what it does not list — and the workers create no pod for an owner UID the API does
// not have. Real watcher and worker processes, real Redis, kube-sim over HTTP; a watch on pods opened the
// moment kube-sim is back sees every pod the operator creates.
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { ProjectionReader } from '@podset/state';
import { NAME_LABEL, specReplicas } from './support/check.ts';
import { watchPods } from './support/pod-watch.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

interface PodEvent {
  type: string;
  object: { metadata: { name?: string; ownerReferences?: { uid: string; controller?: boolean }[] } };
}

let env: OperatorEnv;
let dir: string;
let dataDir: string;
let redis: Redis;
let projection: ProjectionReader;
/** kube-sim's data dir with the CRD and no PodSet. */
let emptyBackup: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'podset-relist-'));
  dataDir = path.join(dir, 'etcd');
  env = await startEnv({ name: 'relist-authoritative', simDataDir: dataDir });
  await applyCrd(env);
  emptyBackup = await backup('backup-empty', (snapshot) => snapshot.includes('podsets.podset.io'));
  // Kubeconfigs at paths of this test's own: the identity is the data dir's, so they hold across restarts.
  const kubeconfig = (identity: string) => {
    const file = path.join(dir, `kubeconfig-${identity}`);
    writeFileSync(file, env.sim.kubeconfigYaml(identity), { mode: 0o600 });
    return file;
  };
  env.startWatcher('watcher-0', { KUBECONFIG: kubeconfig('watcher') });
  env.startWorker('worker-0', { KUBECONFIG: kubeconfig('worker') });
  redis = new Redis(env.redis.url);
  projection = new ProjectionReader({ client: redis, prefix: DEFAULT_PREFIX, queueName: DEFAULT_QUEUE_NAME });
});
after(async () => {
  redis?.disconnect();
  await env?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const apply = (file: string, objects: unknown[]) =>
  env.kubectl(['apply', '-f', env.writeManifest(file, objects)]);

/**
 * A backup of kube-sim's data dir once its snapshot holds `expect` (its objects; no resourceVersion ceiling,
 * so a restore from it goes back in time as an etcd restore does).
 */
async function backup(name: string, expect: (snapshot: string) => boolean): Promise<string> {
  const snapshot = path.join(dataDir, 'snapshot.json');
  await env.waitFor(`kube-sim's snapshot for backup ${name}`, () =>
    existsSync(snapshot) && expect(readFileSync(snapshot, 'utf8')) ? [] : ['not yet written'],
  );
  const to = path.join(dir, name);
  mkdirSync(to);
  copyFileSync(snapshot, path.join(to, 'snapshot.json'));
  return to;
}

/** kube-sim back from a copy of `backupDir` (the backup itself stays as it was); a pod watch from then on. */
async function restore(backupDir: string): Promise<{ events: PodEvent[]; stop(): void }> {
  const from = mkdtempSync(path.join(dir, 'restored-'));
  copyFileSync(path.join(backupDir, 'snapshot.json'), path.join(from, 'snapshot.json'));
  await env.restartSim(from);
  return watchPods<PodEvent>(env, env.sim.resourceVersion(), null);
}

/** How the projection differs from what the API holds of PodSets `names` (empty: it is the same). */
async function projectionDiff(names: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const name of names) {
    const state = await projection.read(`default/${name}`);
    if (state === undefined) return ['the projection is not ready'];
    const api = env.podSet(name);
    const projected = state.podset?.metadata;
    if (api === undefined) {
      if (projected !== undefined) problems.push(`${name}: projected (uid ${projected.uid}), not in the API`);
    } else if (projected?.uid !== api.metadata.uid || projected?.generation !== api.metadata.generation) {
      problems.push(
        `${name}: projected uid ${projected?.uid} generation ${projected?.generation}, API uid ${api.metadata.uid} generation ${api.metadata.generation}`,
      );
    }
    const apiPods = env
      .pods()
      .filter((p) => p.metadata.labels?.[NAME_LABEL] === name)
      .map((p) => p.metadata.name)
      .sort();
    const projectedPods = state.pods.map((p) => p.metadata.name).sort();
    if (JSON.stringify(apiPods) !== JSON.stringify(projectedPods)) {
      problems.push(`${name}: projected pods ${projectedPods.join(',')}, API pods ${apiPods.join(',')}`);
    }
  }
  return problems;
}

/** Pods created since the watch began whose controller is not a PodSet the API has now. */
function podsOfDeadOwners(events: readonly PodEvent[]): string[] {
  const live = new Set(env.podSets().map((ps) => ps.metadata.uid));
  return events
    .filter((e) => e.type === 'ADDED')
    .flatMap((e) => {
      const owner = e.object.metadata.ownerReferences?.find((o) => o.controller === true);
      return owner !== undefined && !live.has(owner.uid)
        ? [`${e.object.metadata.name} (owner ${owner.uid})`]
        : [];
    });
}

test('etcd restored from a backup: the projection becomes the older state (older generation, the old UID), no pod for a dead owner', async () => {
  await apply('before.yaml', [podSetManifest('rweb', 2), podSetManifest('rgone', 2)]);
  await env.waitConverged(['rweb', 'rgone']);
  const oldUid = env.podSet('rgone')!.metadata.uid!;
  const saved = await backup('backup-1', (s) => s.includes(oldUid) && s.includes('"rweb"'));
  // After the backup: rweb scaled up (a newer generation), rgone deleted and made again (a new UID).
  await apply('scaled.yaml', [podSetManifest('rweb', 4)]);
  await env.kubectl(['delete', 'podset', 'rgone', '--wait=true']);
  await apply('again.yaml', [podSetManifest('rgone', 2)]);
  await env.waitConverged(['rweb', 'rgone']);
  const newUid = env.podSet('rgone')!.metadata.uid!;
  assert.notEqual(newUid, oldUid);

  const watch = await restore(saved);
  try {
    assert.equal(env.podSet('rgone')?.metadata.uid, oldUid, 'the API is back at the backup');
    await env.waitFor('the projection to be what the API lists', () => projectionDiff(['rweb', 'rgone']));
    await env.waitConverged(['rweb', 'rgone']);
    // A little longer for a worker that plans from a stale projection to show itself.
    await env.waitFor('a reconcile of each key after the relist', async () =>
      (await projectionDiff(['rweb', 'rgone'])).length === 0 && (await env.pendingJobs()) === 0
        ? []
        : ['busy'],
    );
  } finally {
    watch.stop();
  }
  assert.ok(!watch.events.some((e) => e.type.startsWith('WATCH FAILED')), 'the pod watch held');
  assert.deepEqual(podsOfDeadOwners(watch.events), [], 'no pod for an owner UID the API does not have');
  assert.equal(specReplicas(env.podSet('rweb')!), 2);
  env.assertAllRunning();
});

test('an API server back without its PodSets: the projection holds none of them, and nothing is created', async () => {
  await apply('more.yaml', [podSetManifest('rlost', 3)]);
  await env.waitConverged(['rlost']);
  // The backup was taken before any PodSet: back from it, the API has no rlost, nor the earlier ones.
  const watch = await restore(emptyBackup);
  try {
    await env.waitFor('the projection to hold no PodSet the API lacks', () =>
      projectionDiff(['rweb', 'rgone', 'rlost']),
    );
    // Made again under the same name, with a new UID and resourceVersions below the ones Redis held.
    await apply('made-again.yaml', [podSetManifest('rlost', 2)]);
    await env.waitConverged(['rlost']);
    await env.waitFor('the projection to be what the API lists', () => projectionDiff(['rlost']));
  } finally {
    watch.stop();
  }
  assert.deepEqual(podsOfDeadOwners(watch.events), [], 'no pod for an owner UID the API does not have');
  env.assertAllRunning();
});
