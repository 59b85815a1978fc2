// What happens to a chaos run on its schedule: a user's change to a PodSet, and the faults (processes killed,
// Redis and the API server restarted, the cluster restored from a backup, watches stalled).
import { copyFileSync, cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startKubeSim, type KubeObject } from '@podset/kube-sim';
import { PODS, PODSETS, specReplicas } from '../../e2e/support/check.ts';
import { sleep } from '../../e2e/support/harness.ts';
import type { ChaosRun } from './chaos-run.ts';
import { ownerUid } from './history.ts';
import { API_FAULTS, type Change, type Fault } from './schedule.ts';

export function applyChange(r: ChaosRun, c: Change): void {
  const ns = r.nsOf(c.ps);
  const name = r.names[c.ps] as string;
  const key = r.keyOf(c.ps);
  const ps = r.sim.cluster.get(PODSETS, ns, name);
  if (r.pendingRecreate.has(c.ps) || ps === undefined || ps.metadata.deletionTimestamp !== undefined) {
    if ((c.kind === 'scale' || c.kind === 'recreate') && r.pendingRecreate.has(c.ps))
      r.pendingRecreate.set(c.ps, c.replicas);
    r.count(r.userChanges, 'skipped (PodSet being re-created)');
    return;
  }
  try {
    if (c.kind === 'scale') {
      const copy = structuredClone(ps) as KubeObject & { spec: { replicas: number } };
      // A scale to the replicas it has changes nothing: no reconcile is owed for it.
      if (copy.spec.replicas === c.replicas) {
        r.count(r.userChanges, 'skipped (scale to the same replicas)');
        return;
      }
      copy.spec.replicas = c.replicas;
      r.sim.cluster.update(PODSETS, copy);
      r.lastChange.set(key, Date.now());
      r.count(r.userChanges, 'scale');
    } else if (c.kind === 'template') {
      const copy = structuredClone(ps) as KubeObject & {
        spec: { template: { spec: { containers: { image: string }[] } } };
      };
      copy.spec.template.spec.containers[0]!.image = `busybox:1.36.${c.image}`;
      r.sim.cluster.update(PODSETS, copy);
      r.lastChange.set(key, Date.now());
      r.count(r.userChanges, 'template');
    } else if (c.kind === 'delete-pod') {
      const pods = r.sim.cluster
        .list(PODS, ns)
        .filter((p) => ownerUid(p) === ps.metadata.uid && p.metadata.deletionTimestamp === undefined)
        .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
      const pod = pods[Math.floor(c.pick * pods.length)];
      if (pod === undefined) {
        r.count(r.userChanges, 'skipped (no pod to delete)');
        return;
      }
      r.history.rollouts.userDeleted(pod.metadata.uid ?? '');
      r.sim.cluster.delete(PODS, ns, pod.metadata.name as string);
      r.lastChange.set(key, Date.now());
      r.count(r.userChanges, 'delete pod');
    } else {
      r.sim.cluster.delete(PODSETS, ns, name);
      r.pendingRecreate.set(c.ps, c.replicas);
      r.lastChange.set(key, Date.now());
      r.count(r.userChanges, 'delete + re-create PodSet');
    }
  } catch (err) {
    r.count(r.userChanges, `failed: ${err instanceof Error ? err.message.slice(0, 60) : String(err)}`);
  }
}

/**
 * Redis killed and started from its AOF as it was a second before: the writes of its last second are lost
 * (as when the machine, not only the process, dies with appendfsync everysec).
 */
async function restartRedisLosingLastSecond(r: ChaosRun): Promise<void> {
  const aofDir = path.join(r.redisDir, 'appendonlydir');
  const copy = path.join(r.dir, 'aof-a-second-ago');
  rmSync(copy, { recursive: true, force: true });
  cpSync(aofDir, copy, { recursive: true });
  await sleep(1000);
  r.note('Redis: hard restart from its AOF of a second ago (its last second of writes lost)');
  await r.redis.stop({ hard: true });
  rmSync(aofDir, { recursive: true, force: true });
  cpSync(copy, aofDir, { recursive: true });
  await r.redis.restart();
  r.count(r.processKills, 'redis restart (last second lost)');
  r.note('Redis: back, a second behind');
}

/**
 * kube-r.sim restarted on its port from the etcd-backup copy: the objects and resourceVersions of then (the
 * identity too, so every kubeconfig holds). Changes made since are gone, deleted objects are back. The
 * run's own view follows: its recorder takes the restored store as it is, a PodSet deleted to be re-created
 * is as the backup has it, one the backup lacks is made again, and every key is owed a reconcile after now.
 */
async function restoreEtcd(r: ChaosRun): Promise<void> {
  if (r.etcdBackup === undefined) {
    r.violations.push('etcd-restore: no backup was taken');
    return;
  }
  const desired = r.names.map((n, i) => {
    const ps = r.sim.cluster.get(PODSETS, r.nsOf(i), n);
    return ps === undefined ? undefined : specReplicas(ps);
  });
  r.unsubscribe();
  r.stopAudit();
  const port = r.sim.port;
  await r.sim.close();
  const restored = mkdtempSync(path.join(r.dir, 'etcd-restored-'));
  copyFileSync(r.etcdBackup, path.join(restored, 'snapshot.json'));
  r.sim = await startKubeSim({ ...r.simOptions, dataDir: restored, port });
  r.env.sim = r.sim;
  r.unsubscribe = r.subscribe();
  r.stopAudit = r.sim.audit.onEntry(r.onAudit);
  r.history.replaced(r.sim.cluster.list(PODSETS), r.sim.cluster.list(PODS));
  r.record.onReplaced(r.sim.cluster.list(PODSETS), r.sim.cluster.list(PODS));
  r.afterRestore = true;
  r.sim.faults.set(API_FAULTS);
  for (const [i, n] of r.names.entries()) {
    // Restored alive: as the user sees it now. Absent, or restored being deleted: made again once gone.
    const ps = r.sim.cluster.get(PODSETS, r.nsOf(i), n);
    if (ps !== undefined && ps.metadata.deletionTimestamp === undefined) r.pendingRecreate.delete(i);
    else if (!r.pendingRecreate.has(i)) r.pendingRecreate.set(i, desired[i] ?? 1);
    r.lastChange.set(r.keyOf(i), Date.now());
  }
  r.count(r.processKills, 'API server restored from a backup');
  r.note('API server: restored from the backup (the cluster went back in time)');
}

export async function applyFault(r: ChaosRun, f: Fault): Promise<void> {
  switch (f.kind) {
    case 'kill-worker': {
      const w = r.workers[f.worker];
      if (w?.running) {
        await w.kill();
        r.count(r.processKills, 'worker SIGKILL');
        r.note(`SIGKILL ${w.name}`);
      }
      await sleep(300);
      r.startWorker(f.worker);
      return;
    }
    case 'kill-leader': {
      // The standby of the last kill may still be taking over: wait (bounded) for a running leader.
      const leaderNow = () => {
        const lease = r.sim.cluster.get('leases.coordination.k8s.io', 'default', 'podset-watcher') as
          (KubeObject & { spec?: { holderIdentity?: string } }) | undefined;
        const h = lease?.spec?.holderIdentity;
        return { holder: h, leader: r.watchers.find((w) => w.running && w.name === h) };
      };
      const waitUntil = Date.now() + 20_000;
      while (leaderNow().leader === undefined && Date.now() < waitUntil) await sleep(200);
      const { holder, leader } = leaderNow();
      if (leader === undefined) {
        r.note(`kill-leader: no running leader (lease holder ${holder ?? 'none'})`);
        r.violations.push(
          `kill-leader at +${f.at} ms: no running watcher took the lease within 20 s (holder ${holder ?? 'none'})`,
        );
        return;
      }
      await leader.kill();
      r.count(r.processKills, 'leading watcher SIGKILL');
      r.note(`SIGKILL leading ${leader.name}`);
      r.startWatcher();
      return;
    }
    case 'redis-restart-aof':
      r.note('Redis: hard restart with AOF');
      await r.redis.restart({ hard: true });
      r.count(r.processKills, 'redis restart (AOF)');
      r.note('Redis: back (AOF replayed)');
      return;
    case 'redis-restart-empty': {
      r.note('Redis: hard restart losing every key (no persistence)');
      await r.redis.stop({ hard: true });
      for (const f of readdirSync(r.redisDir))
        rmSync(path.join(r.redisDir, f), { recursive: true, force: true });
      await r.redis.restart();
      r.count(r.processKills, 'redis restart (data lost)');
      r.note('Redis: back, empty');
      return;
    }
    case 'api-restart':
      r.note('API server: restart (store kept)');
      await r.sim.restart();
      r.count(r.processKills, 'API server restart');
      return;
    case 'redis-restart-lose-last-second':
      await restartRedisLosingLastSecond(r);
      return;
    case 'etcd-backup': {
      // The snapshot is written whole (temp file, rename) at most a second after a change: a consistent
      // state of a moment ago, as an etcd backup is.
      r.etcdBackup = path.join(r.dir, 'etcd-backup.json');
      copyFileSync(path.join(r.dir, 'etcd', 'snapshot.json'), r.etcdBackup);
      r.note('API server: its data dir backed up (as an etcd snapshot)');
      return;
    }
    case 'etcd-restore':
      await restoreEtcd(r);
      return;
    case 'stall-watches': {
      // The leader may have no watch open right now (it closes them while Redis is away, and Redis is
      // restarted just before): stalled at once, this fault stalled nothing in 24 of 25 short runs. Wait
      // (bounded) for a watch to stall; counted only when one was (still none, at times, when the leader
      // changes and Redis restarts within those 10 s: not asserted by chaos-short).
      const until = Date.now() + 10_000;
      let n = r.sim.faults.stallWatches();
      while (n === 0 && Date.now() < until) {
        await sleep(100);
        n = r.sim.faults.stallWatches();
      }
      r.note(`API server: ${n} open watches stalled (no events, no bookmarks)`);
      if (n > 0) r.count(r.processKills, 'watches stalled');
      return;
    }
  }
}
