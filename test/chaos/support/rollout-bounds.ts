// The rollout checks of the chaos run, from kube-sim's history (every committed store event): the
// operator never takes a PodSet above replicas + maxSurge active pods by a create, never below
// replicas - maxUnavailable ready pods by a delete during a rollout (unless it was already below), and
// every PodSet ends with all its pods on its newest template. The chaos PodSets use the default strategy
// (RollingUpdate, 25% / 25%).
//
// A worker plans from what it has seen, which may be a moment old: a scale-down or a user's pod delete
// that lands between its plan and its write is not its fault. So a bound is the loosest one of the specs
// the PodSet had in the last WINDOW_MS, and a delete is not judged while a user delete of that PodSet's
// pods is that recent.
import type { KubeObject, StoreEvent } from '@podset/kube-sim';
import { templateHash, type PodSet } from '@podset/reconcile';
import { isActive, isReady, specReplicas, statusOf } from '../../e2e/support/check.ts';

const PODSETS = 'podsets.podset.io';
const HASH_LABEL = 'podset.io/template-hash';
const WINDOW_MS = 10_000;

const surge = (replicas: number) => Math.ceil(replicas * 0.25);
const unavailable = (replicas: number) => {
  const s = surge(replicas);
  const u = Math.floor(replicas * 0.25);
  return s === 0 && u === 0 ? 1 : u;
};

interface PodSetTrack {
  name: string;
  /** Spec replicas over time, newest last. */
  specs: { at: number; replicas: number }[];
  hash: string;
  deleting: boolean;
  lastUserDelete: number;
}

interface PodTrack {
  owner: string;
  hash: string | undefined;
  active: boolean;
  ready: boolean;
}

export class RolloutBounds {
  readonly violations: string[] = [];
  readonly #podsets = new Map<string, PodSetTrack>();
  readonly #pods = new Map<string, PodTrack>();
  readonly #userDeleted = new Set<string>();
  /** Pods made on the restored API server by a plan read before the restore (history.ts): not judged. */
  readonly #beforeRestore = new Set<string>();

  /** A pod a reconcile planned before the etcd restore made after it: neither judged nor counted by a create. */
  plannedBeforeRestore(podUid: string): void {
    this.#beforeRestore.add(podUid);
  }

  /** The chaos deletes this pod itself (a user's `kubectl delete pod`), not the operator. */
  userDeleted(podUid: string): void {
    this.#userDeleted.add(podUid);
    const owner = this.#pods.get(podUid)?.owner;
    const ps = owner !== undefined ? this.#podsets.get(owner) : undefined;
    if (ps !== undefined) ps.lastUserDelete = Date.now();
  }

  /**
   * The store was replaced (kube-sim restored from a backup: etcd back in time): what is tracked becomes what
   * it holds now, unjudged (no operator write made that change). A PodSet's recent specs are kept (a bound is
   * the loosest of them), its restored one added.
   */
  replaced(podsets: readonly KubeObject[], pods: readonly KubeObject[]): void {
    const restored = new Set(podsets.map((o) => o.metadata.uid ?? ''));
    for (const uid of [...this.#podsets.keys()]) if (!restored.has(uid)) this.#podsets.delete(uid);
    for (const o of podsets) this.#onPodSet('MODIFIED', o);
    this.#pods.clear();
    for (const o of pods) {
      const owner = (o.metadata.ownerReferences ?? []).find((r) => r.controller === true)?.uid;
      if (owner === undefined) continue;
      this.#pods.set(o.metadata.uid ?? '', {
        owner,
        hash: o.metadata.labels?.[HASH_LABEL],
        active: isActive(o),
        ready: isReady(o),
      });
    }
  }

  on(ev: StoreEvent): void {
    const o = ev.object;
    if (ev.resource === PODSETS) this.#onPodSet(ev.type, o);
    else if (ev.resource === 'pods') this.#onPod(ev.type, o);
  }

  #onPodSet(type: string, o: KubeObject): void {
    const uid = o.metadata.uid ?? '';
    if (type === 'DELETED') {
      this.#podsets.delete(uid);
      return;
    }
    const replicas = specReplicas(o) ?? 1;
    const t = this.#podsets.get(uid) ?? {
      name: `${o.metadata.namespace}/${o.metadata.name}`,
      specs: [],
      hash: '',
      deleting: false,
      lastUserDelete: 0,
    };
    if (t.specs.at(-1)?.replicas !== replicas) t.specs.push({ at: Date.now(), replicas });
    t.hash = templateHash(o as unknown as PodSet);
    t.deleting = o.metadata.deletionTimestamp !== undefined;
    this.#podsets.set(uid, t);
  }

  /** The loosest bound of the specs in force during the last WINDOW_MS. */
  #recent(t: PodSetTrack, now: number): number[] {
    const from = now - WINDOW_MS;
    const recent: number[] = [];
    for (let i = t.specs.length - 1; i >= 0; i--) {
      recent.push(t.specs[i]!.replicas);
      if (t.specs[i]!.at <= from) break;
    }
    return recent;
  }

  #count(owner: string, what: (p: PodTrack) => boolean): number {
    let n = 0;
    for (const p of this.#pods.values()) if (p.owner === owner && what(p)) n++;
    return n;
  }

  #onPod(type: string, o: KubeObject): void {
    const uid = o.metadata.uid ?? '';
    const ref = (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    const owner = ref?.uid ?? this.#pods.get(uid)?.owner;
    if (owner === undefined) return;
    const before = this.#pods.get(uid);
    if (type === 'DELETED') {
      this.#pods.delete(uid);
      return;
    }
    const now: PodTrack = {
      owner,
      hash: o.metadata.labels?.[HASH_LABEL],
      active: isActive(o),
      ready: isReady(o),
    };
    const ps = this.#podsets.get(owner);
    // Readiness and outdated pods as they were just before this event.
    const readyBefore = this.#count(owner, (p) => p.active && p.ready);
    const outdatedBefore = ps ? this.#count(owner, (p) => p.active && p.hash !== ps.hash) : 0;
    this.#pods.set(uid, now);
    if (ps === undefined || ps.deleting) return;
    const at = Date.now();
    const recent = this.#recent(ps, at);

    if (type === 'ADDED' && now.active && !this.#beforeRestore.has(uid)) {
      const active = [...this.#pods].filter(
        ([u, p]) => p.owner === owner && p.active && !this.#beforeRestore.has(u),
      ).length;
      const bound = Math.max(...recent.map((r) => r + surge(r)));
      if (active > bound) {
        this.violations.push(
          `${ps.name}: a create took it to ${active} active pods; replicas + maxSurge is at most ${bound}`,
        );
      }
    }
    const deletedNow = before?.active === true && !now.active && o.metadata.deletionTimestamp !== undefined;
    const byOperator = !this.#userDeleted.has(uid) && at - ps.lastUserDelete > WINDOW_MS;
    if (deletedNow && byOperator && before.ready && outdatedBefore > 0) {
      const readyAfter = readyBefore - 1;
      const floor = Math.min(...recent.map((r) => r - unavailable(r)));
      if (readyAfter < Math.min(readyBefore, floor)) {
        this.violations.push(
          `${ps.name}: a delete during a rollout took it to ${readyAfter} ready pods (from ${readyBefore}); replicas - maxUnavailable is at least ${floor}`,
        );
      }
    }
  }
}

/** A converged PodSet is on its newest template: every active pod, and its status, say so. */
export function templateProblems(
  ps: KubeObject | undefined,
  pods: readonly KubeObject[],
  key: string,
): string[] {
  if (ps === undefined) return [];
  const hash = templateHash(ps as unknown as PodSet);
  const mine = pods.filter(
    (p) => isActive(p) && (p.metadata.ownerReferences ?? []).some((r) => r.uid === ps.metadata.uid),
  );
  const problems: string[] = [];
  const stale = mine.filter((p) => p.metadata.labels?.[HASH_LABEL] !== hash).length;
  if (stale > 0) problems.push(`${key}: ${stale} active pods not of its newest template ${hash}`);
  const st = statusOf(ps) as { updatedReplicas?: number; templateHash?: string };
  if (st.templateHash !== hash)
    problems.push(`${key}: status.templateHash ${st.templateHash}, expected ${hash}`);
  if (st.updatedReplicas !== specReplicas(ps)) {
    problems.push(`${key}: status.updatedReplicas ${st.updatedReplicas}, expected ${specReplicas(ps)}`);
  }
  return problems;
}
