// The chaos run's recorder of kube-sim's history: from every committed store event, per PodSet (by UID),
// the largest spec.replicas it ever had and the most active pods it ever controlled at once — the
// over-creation verdict, computed independently of the operator's code.
import type { KubeObject, StoreEvent } from '@podset/kube-sim';
import { NAME_LABEL, PODS, PODSETS, isActive, specReplicas } from '../../e2e/support/check.ts';
import { RolloutBounds } from './rollout-bounds.ts';

export const ownerUid = (pod: KubeObject): string | undefined =>
  (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true)?.uid;

/**
 * The history recorder: from every committed store event, the largest spec.replicas each PodSet (by
 * UID) ever had and the largest number of active pods it ever controlled at once — not counting the pods
 * a reconcile planned before the etcd restore made after it (plannedBeforeRestore): no create precondition
 * can stop those, the next reconcile deletes them, and they are reported beside the verdict.
 */
export class History {
  readonly maxReplicas = new Map<string, number>();
  readonly maxActive = new Map<string, number>();
  /** When each PodSet first reached its largest active count, and which pods were active then. */
  readonly peak = new Map<string, { at: number; pods: string[] }>();
  readonly #names = new Map<string, string>();
  readonly podNames = new Map<string, string>();
  readonly #active = new Map<string, Set<string>>();
  readonly #podOwner = new Map<string, string>();
  /** Pods made on the restored API server by a plan read from the one before (their uids and names). */
  readonly #beforeRestore = new Map<string, string>();
  podsCreated = 0;
  /** Rollout bounds broken by the operator (rollout-bounds.ts), as they happened. */
  readonly rollouts = new RolloutBounds();

  on(ev: StoreEvent): void {
    this.rollouts.on(ev);
    const o = ev.object;
    const uid = o.metadata.uid ?? '';
    if (ev.resource === PODSETS) {
      const r = specReplicas(o);
      if (typeof r === 'number' && r > (this.maxReplicas.get(uid) ?? -1)) this.maxReplicas.set(uid, r);
      this.podNames.set(uid, `${o.metadata.namespace}/${o.metadata.name}`);
      return;
    }
    if (ev.resource !== PODS || o.metadata.labels?.[NAME_LABEL] === undefined) return;
    if (ev.type === 'ADDED') this.podsCreated++;
    const owner = ownerUid(o) ?? this.#podOwner.get(uid);
    if (owner === undefined) return;
    this.#podOwner.set(uid, owner);
    let set = this.#active.get(owner);
    if (set === undefined) this.#active.set(owner, (set = new Set()));
    this.#names.set(uid, o.metadata.name ?? uid);
    if (ev.type !== 'DELETED' && isActive(o)) set.add(uid);
    else set.delete(uid);
    const counted = [...set].filter((u) => !this.#beforeRestore.has(u));
    if (counted.length > (this.maxActive.get(owner) ?? 0)) {
      this.maxActive.set(owner, counted.length);
      this.peak.set(owner, { at: Date.now(), pods: counted.map((u) => this.#names.get(u) ?? u) });
    }
  }

  /**
   * A pod made on the restored API server for a PodSet no worker had read there yet: its reconcile read the
   * cluster before the restore (one at a time per key: no other reconcile of the key ran since). Call before
   * its ADDED event's on().
   */
  plannedBeforeRestore(pod: KubeObject): void {
    this.#beforeRestore.set(pod.metadata.uid ?? '', pod.metadata.name ?? '');
    this.rollouts.plannedBeforeRestore(pod.metadata.uid ?? '');
  }

  get madeFromBeforeRestore(): string[] {
    return [...this.#beforeRestore.values()];
  }

  /**
   * The store was replaced (kube-sim restored from a backup): the active pods per PodSet become what it holds
   * now (pods made since the backup are gone without an event; pods deleted since are back).
   */
  replaced(podsets: readonly KubeObject[], pods: readonly KubeObject[]): void {
    this.rollouts.replaced(podsets, pods);
    for (const o of podsets) this.on({ type: 'MODIFIED', resource: PODSETS, object: o });
    this.#active.clear();
    for (const o of pods) {
      if (o.metadata.labels?.[NAME_LABEL] === undefined) continue;
      const owner = ownerUid(o);
      if (owner === undefined) continue;
      const uid = o.metadata.uid ?? '';
      this.#podOwner.set(uid, owner);
      this.#names.set(uid, o.metadata.name ?? uid);
      let set = this.#active.get(owner);
      if (set === undefined) this.#active.set(owner, (set = new Set()));
      if (isActive(o)) set.add(uid);
    }
  }

  /**
   * Over-creation: PodSets that once had more active pods than the largest spec.replicas they had plus
   * the surge a rollout may add (25% of it, rounded up).
   */
  overCreation(t0: number): { pods: number; problems: string[] } {
    let pods = 0;
    const problems: string[] = [];
    for (const [uid, active] of this.maxActive) {
      const replicas = this.maxReplicas.get(uid) ?? 0;
      const max = replicas + Math.ceil(replicas / 4);
      if (active > max) {
        pods += active - max;
        problems.push(
          `over-creation: ${this.podNames.get(uid) ?? uid} (uid ${uid}) had ${active} active pods at once, largest spec.replicas ${max}` +
            (this.peak.get(uid)
              ? ` (at +${(((this.peak.get(uid)?.at ?? 0) - t0) / 1000).toFixed(1)}s: ${this.peak.get(uid)?.pods.join(', ')})`
              : ''),
        );
      }
    }
    return { pods, problems };
  }
}
