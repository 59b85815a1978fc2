// Deployment controller, as kube-controller-manager's (pkg/controller/deployment): one ReplicaSet per pod
// template, `<deployment>-<pod-template-hash>`, rolled out with RollingUpdate (maxSurge / maxUnavailable)
// or Recreate; revision annotations on the Deployment and its ReplicaSets (a rollback by `kubectl rollout
// undo` brings an old ReplicaSet back with a new revision); scaling in the middle of a rollout spread in
// proportion; paused Deployments only scaled; old ReplicaSets beyond revisionHistoryLimit deleted; status
// counts and the Available / Progressing conditions with the real reasons and messages (progress deadline
// included), so `kubectl rollout status` sees what it sees against a cluster. The arithmetic is in
// deployment-util.ts, the progress conditions in deployment-progress.ts; the ReplicaSets' pods are the
// ReplicaSet controller's.
import {
  ApiError,
  type ClusterAccess,
  type Json,
  type JsonObject,
  type KubeObject,
  type StoreEvent,
} from '../apimachinery/types.ts';
import {
  REVISION,
  availableReplicas,
  byCreation,
  calculateStatus,
  condition,
  deploymentComplete,
  deploymentSpec,
  equalIgnoreHash,
  findNewReplicaSet,
  getCondition,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  newReplicaSetAnnotations,
  omitEmpty,
  proportionalSizes,
  replicasAnnotations,
  replicaSetDraft,
  revisionOf,
  setCondition,
  specReplicas,
  statusReplicas,
  sum,
  DESIRED_REPLICAS,
  type DeploymentSpec,
} from './deployment-util.ts';
import { pausedStatus, rolloutStatus, stuckRequeueMs } from './deployment-progress.ts';
import { KeyedQueue } from './keyed-queue.ts';
import { recordEvent } from './object-events.ts';
import {
  FAILED_CREATE_RETRY_MS,
  controllerOf,
  controllerRef,
  num,
  obj,
  selectorMatcher,
  type LabelMatcher,
} from './pod-replicas.ts';
import { podTemplateHash, canonicalJson } from './pod-template-hash.ts';
import { REPLICASETS } from './replicasets.ts';
import { isApiError, mutate, nowIso, type ErrorReporter } from './util.ts';

export const DEPLOYMENTS = 'deployments.apps';
const COMPONENT = 'deployment-controller';

export interface DeploymentController {
  stop(): void;
}

export function startDeploymentController(
  cluster: ClusterAccess,
  report: ErrorReporter,
): DeploymentController {
  const queue = new KeyedQueue('deployment controller', report, (namespace, name) => {
    const d = cluster.get(DEPLOYMENTS, namespace, name);
    if (d) new DeploymentSync(cluster, report, queue, d).run();
  });

  function ownerDeployment(o: KubeObject): string | undefined {
    const ref = controllerOf(o);
    return ref?.kind === 'Deployment' ? ref.name : undefined;
  }

  /** Events of the resources related to ours (its pods): the keys they concern. */
  function handle(event: StoreEvent): void {
    const o = event.object;
    const namespace = o.metadata.namespace ?? '';
    if (event.resource === REPLICASETS) {
      const owner = ownerDeployment(o);
      if (owner) queue.add(namespace, owner);
      else if (!controllerOf(o) && event.type !== 'DELETED') {
        // An orphan ReplicaSet: the Deployments whose selector matches it may adopt it.
        for (const d of cluster.list(DEPLOYMENTS, namespace))
          if (selectorMatcher(obj(d.spec).selector)(o.metadata.labels))
            queue.add(namespace, d.metadata.name ?? '');
      }
    } else if (event.resource === 'pods' && event.type === 'DELETED') {
      // Recreate waits for the old pods to be gone, which changes no ReplicaSet's status.
      const ref = controllerOf(o);
      if (ref?.kind !== 'ReplicaSet') return;
      const rs = cluster.get(REPLICASETS, namespace, ref.name);
      const owner = rs && ownerDeployment(rs);
      if (owner) queue.add(namespace, owner);
    }
  }

  return queue.run(cluster, DEPLOYMENTS, handle);
}

/** One sync of one Deployment (syncDeployment), working on fresh copies of what it writes. */
class DeploymentSync {
  readonly #cluster: ClusterAccess;
  readonly #report: ErrorReporter;
  readonly #queue: KeyedQueue;
  #d: KubeObject;
  readonly #namespace: string;
  readonly #name: string;
  readonly #now = nowIso();
  /** The ReplicaSets this Deployment controls, replaced by the written copy after each write. */
  #rss: KubeObject[] = [];

  constructor(cluster: ClusterAccess, report: ErrorReporter, queue: KeyedQueue, d: KubeObject) {
    this.#cluster = cluster;
    this.#report = report;
    this.#queue = queue;
    this.#d = d;
    this.#namespace = d.metadata.namespace ?? 'default';
    this.#name = d.metadata.name ?? '';
  }

  get #spec(): DeploymentSpec {
    return deploymentSpec(this.#d);
  }

  run(): void {
    const spec = obj(this.#d.spec);
    const matches = selectorMatcher(spec.selector);
    if (!matches(obj(obj(obj(spec.template).metadata).labels) as Record<string, string>)) {
      // An empty selector (matches nothing here) or one that misses its own template is refused by the
      // API server; a Deployment that has one anyway only gets its generation observed.
      const generation = this.#d.metadata.generation ?? 1;
      if (num(obj(this.#d.status).observedGeneration, 0) < generation)
        this.#writeStatus({ ...obj(this.#d.status), observedGeneration: generation });
      return;
    }
    this.#rss = this.#claimReplicaSets(matches);
    if (this.#d.metadata.deletionTimestamp !== undefined) {
      const { newRS, oldRSs } = this.#getAllAndSyncRevision(false);
      this.#syncStatus(this.#all(newRS, oldRSs), newRS);
      return;
    }
    this.#checkPausedConditions();
    if (this.#spec.paused || this.#isScalingEvent()) return this.#scaleSync();
    if (this.#spec.recreate) this.#rolloutRecreate();
    else this.#rolloutRolling();
  }

  // --- ReplicaSets -----------------------------------------------------------------------------------------

  /** ClaimReplicaSets: owned ones that still match, plus matching orphans adopted. */
  #claimReplicaSets(matches: LabelMatcher): KubeObject[] {
    const uid = this.#d.metadata.uid;
    const deleting = this.#d.metadata.deletionTimestamp !== undefined;
    const out: KubeObject[] = [];
    for (const rs of this.#cluster.list(REPLICASETS, this.#namespace)) {
      const ref = controllerOf(rs);
      if (ref?.uid === uid) {
        if (matches(rs.metadata.labels) || rs.metadata.deletionTimestamp !== undefined || deleting)
          out.push(rs);
        else this.#setRSController(rs, false);
      } else if (
        !ref &&
        !deleting &&
        rs.metadata.deletionTimestamp === undefined &&
        matches(rs.metadata.labels)
      ) {
        const adopted = this.#setRSController(rs, true);
        if (adopted) out.push(adopted);
      }
    }
    return out;
  }

  #setRSController(rs: KubeObject, adopt: boolean): KubeObject | undefined {
    const ref = controllerRef({ apiVersion: 'apps/v1', kind: 'Deployment', object: this.#d });
    return mutate(
      this.#cluster,
      'update',
      REPLICASETS,
      this.#namespace,
      rs.metadata.name ?? '',
      rs.metadata.uid,
      (o) => {
        const current = controllerOf(o);
        if (adopt ? current !== undefined : current?.uid !== ref.uid) return undefined;
        const others = (o.metadata.ownerReferences ?? []).filter((r) => r.controller !== true);
        const refs = adopt ? [...others, ref] : others;
        if (refs.length) o.metadata.ownerReferences = refs;
        else delete o.metadata.ownerReferences;
        return o;
      },
    );
  }

  #updateRS(rs: KubeObject, change: (o: KubeObject) => KubeObject | undefined): KubeObject {
    const written = mutate(
      this.#cluster,
      'update',
      REPLICASETS,
      this.#namespace,
      rs.metadata.name ?? '',
      rs.metadata.uid,
      change,
    );
    if (!written) return rs;
    this.#rss = this.#rss.map((r) => (r.metadata.uid === written.metadata.uid ? written : r));
    return written;
  }

  #current(rs: KubeObject): KubeObject {
    return this.#rss.find((r) => r.metadata.uid === rs.metadata.uid) ?? rs;
  }

  #all(newRS: KubeObject | undefined, oldRSs: KubeObject[]): KubeObject[] {
    return [...oldRSs, ...(newRS ? [newRS] : [])].map((rs) => this.#current(rs));
  }

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked) and the old ones. */
  #getAllAndSyncRevision(create: boolean): { newRS: KubeObject | undefined; oldRSs: KubeObject[] } {
    const existing = findNewReplicaSet(this.#d, this.#rss);
    const oldRSs = this.#rss.filter((rs) => rs !== existing);
    const newRevision = Math.max(0, ...oldRSs.map(revisionOf)) + 1;
    if (existing) return { newRS: this.#syncExistingNewRS(existing, newRevision), oldRSs };
    if (!create) return { newRS: undefined, oldRSs };
    return { newRS: this.#createNewRS(oldRSs, newRevision), oldRSs };
  }

  #syncExistingNewRS(rs: KubeObject, newRevision: number): KubeObject {
    const annotations = newReplicaSetAnnotations(this.#d, rs.metadata.annotations, newRevision, false);
    const minReady = this.#spec.minReadySeconds;
    const annotationsChanged = canonicalJson(annotations) !== canonicalJson(rs.metadata.annotations ?? {});
    if (annotationsChanged || num(obj(rs.spec).minReadySeconds, 0) !== minReady) {
      return this.#updateRS(rs, (o) => {
        o.metadata.annotations = newReplicaSetAnnotations(
          this.#d,
          o.metadata.annotations,
          newRevision,
          false,
        );
        o.spec = { ...obj(o.spec), minReadySeconds: minReady };
        return o;
      });
    }
    this.#setRevision(rs.metadata.annotations?.[REVISION] ?? String(newRevision));
    if (!getCondition(obj(this.#d.status), 'Progressing'))
      this.#setProgressing('True', 'FoundNewReplicaSet', `Found new replica set "${rs.metadata.name}"`);
    return rs;
  }

  #createNewRS(oldRSs: KubeObject[], newRevision: number): KubeObject | undefined {
    const template = obj(obj(this.#d.spec).template);
    const collisionCount = obj(this.#d.status).collisionCount;
    const hash = podTemplateHash(template, typeof collisionCount === 'number' ? collisionCount : undefined);
    const draft = replicaSetDraft(this.#d, hash);
    const replicas = newRSNewReplicas(this.#d, [...oldRSs, draft], draft);
    draft.spec = { ...obj(draft.spec), replicas };
    draft.metadata.annotations = newReplicaSetAnnotations(this.#d, {}, newRevision, true);
    const made = this.#createOrAdopt(draft, template, collisionCount);
    if (!made) return undefined;
    const { rs: created, alreadyExisted } = made;
    if (!alreadyExisted) this.#rss.push(created);
    if (!alreadyExisted && replicas > 0)
      this.#event(
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`,
      );
    this.#setRevision(String(newRevision));
    if (!alreadyExisted)
      this.#setProgressing(
        'True',
        'NewReplicaSetCreated',
        `Created new replica set "${created.metadata.name}"`,
      );
    return created;
  }

  /**
   * Creates the new ReplicaSet, or finds it made already (same template, ours). Undefined when neither:
   * a failed create (reported, tried again later) or a hash collision (collisionCount raised).
   */
  #createOrAdopt(
    draft: KubeObject,
    template: JsonObject,
    collisionCount: Json | undefined,
  ): { rs: KubeObject; alreadyExisted: boolean } | undefined {
    try {
      return { rs: this.#cluster.create(REPLICASETS, draft), alreadyExisted: false };
    } catch (err) {
      if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) {
        const message = `Failed to create new replica set "${draft.metadata.name}": ${err instanceof Error ? err.message : String(err)}`;
        if (this.#setProgressing('False', 'ReplicaSetCreateError', message))
          this.#event('Warning', 'ReplicaSetCreateError', message);
        if (!(err instanceof ApiError)) throw err;
        this.#queue.addAfter(this.#namespace, this.#name, FAILED_CREATE_RETRY_MS);
        return undefined;
      }
    }
    const found = this.#cluster.get(REPLICASETS, this.#namespace, draft.metadata.name ?? '');
    if (
      found &&
      controllerOf(found)?.uid === this.#d.metadata.uid &&
      equalIgnoreHash(template, obj(found.spec).template)
    )
      return { rs: found, alreadyExisted: true };
    // A hash collision: another template has this name. The next hash includes a higher collisionCount.
    const count = typeof collisionCount === 'number' ? collisionCount + 1 : 1;
    this.#writeStatus({ ...obj(this.#d.status), collisionCount: count });
    return undefined;
  }

  /**
   * Sets the Progressing condition and writes the status, as the real controller does only for a
   * Deployment with a progress deadline. Whether it did.
   */
  #setProgressing(status: 'True' | 'False', reason: string, message: string): boolean {
    if (this.#spec.progressDeadlineSeconds === undefined) return false;
    const c = condition('Progressing', status, reason, message, this.#now);
    this.#writeStatus(setCondition(obj(this.#d.status), c));
    return true;
  }

  /** SetDeploymentRevision (the real controller writes it with the status; kube-sim's status write keeps metadata). */
  #setRevision(revision: string): void {
    if (this.#d.metadata.annotations?.[REVISION] === revision) return;
    const written = mutate(
      this.#cluster,
      'update',
      DEPLOYMENTS,
      this.#namespace,
      this.#name,
      this.#d.metadata.uid,
      (o) => {
        if (o.metadata.annotations?.[REVISION] === revision) return undefined;
        o.metadata.annotations = { ...o.metadata.annotations, [REVISION]: revision };
        return o;
      },
    );
    if (written) this.#d = written;
  }

  // --- scaling ---------------------------------------------------------------------------------------------

  /** scaleReplicaSetAndRecordEvent: false when the size is already right. */
  #scaleAndRecord(rs: KubeObject, replicas: number): boolean {
    if (specReplicas(rs) === replicas) return false;
    this.#scaleReplicaSet(rs, replicas, specReplicas(rs) < replicas ? 'up' : 'down');
    return true;
  }

  #scaleReplicaSet(rs: KubeObject, replicas: number, direction: string): KubeObject {
    const from = specReplicas(rs);
    if (from === replicas && !replicasAnnotations(this.#d, rs)) return rs;
    const written = this.#updateRS(rs, (o) => {
      o.metadata.annotations = replicasAnnotations(this.#d, o) ?? o.metadata.annotations ?? {};
      o.spec = { ...obj(o.spec), replicas };
      return o;
    });
    if (from !== replicas)
      this.#event(
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${direction} replica set ${rs.metadata.name} from ${from} to ${replicas}`,
      );
    return written;
  }

  /** isScalingEvent: an active ReplicaSet was sized for another spec.replicas. */
  #isScalingEvent(): boolean {
    const { newRS, oldRSs } = this.#getAllAndSyncRevision(false);
    if (!newRS) return false;
    const want = this.#spec.replicas;
    return this.#all(newRS, oldRSs)
      .filter((rs) => specReplicas(rs) > 0)
      .some((rs) => {
        const desired = rs.metadata.annotations?.[DESIRED_REPLICAS];
        return desired !== undefined && Number(desired) !== want;
      });
  }

  /** sync: scale (proportionally during a rollout), clean up when paused, report status. */
  #scaleSync(): void {
    const { newRS, oldRSs } = this.#getAllAndSyncRevision(false);
    this.#scale(newRS, oldRSs);
    if (this.#spec.paused) this.#cleanup(oldRSs.map((rs) => this.#current(rs)));
    this.#syncStatus(this.#all(newRS, oldRSs), newRS && this.#current(newRS));
  }

  #scale(newRS: KubeObject | undefined, oldRSs: KubeObject[]): void {
    const s = this.#spec;
    const newestFirst = [...oldRSs].sort(byCreation).reverse();
    const active = [...newestFirst, ...(newRS ? [newRS] : [])].filter((rs) => specReplicas(rs) > 0);
    const only =
      active.length === 0 ? (newRS ?? newestFirst[0]) : active.length === 1 ? active[0] : undefined;
    if (only) {
      this.#scaleAndRecord(only, s.replicas);
      return;
    }
    if (newRS && this.#isSaturated(newRS)) {
      for (const rs of oldRSs.filter((r) => specReplicas(r) > 0)) this.#scaleAndRecord(rs, 0);
      return;
    }
    if (s.recreate) return;
    const allowed = s.replicas > 0 ? s.replicas + maxSurge(s) : 0;
    const toAdd = allowed - sum(active, specReplicas);
    for (const [rs, size] of proportionalSizes(this.#d, active, toAdd))
      this.#scaleReplicaSet(rs, size, toAdd > 0 ? 'up' : 'down');
  }

  #isSaturated(rs: KubeObject): boolean {
    const want = this.#spec.replicas;
    return (
      Number(rs.metadata.annotations?.[DESIRED_REPLICAS]) === want &&
      specReplicas(rs) === want &&
      availableReplicas(rs) === want
    );
  }

  // --- rollouts --------------------------------------------------------------------------------------------

  #rolloutRolling(): void {
    const { newRS, oldRSs } = this.#getAllAndSyncRevision(true);
    if (!newRS) return;
    if (this.#reconcileNewRS(newRS, oldRSs)) return this.#syncRolloutStatus(newRS, oldRSs);
    if (this.#reconcileOldRSs(newRS, oldRSs)) return this.#syncRolloutStatus(newRS, oldRSs);
    if (deploymentComplete(this.#d, obj(this.#d.status)))
      this.#cleanup(oldRSs.map((rs) => this.#current(rs)));
    this.#syncRolloutStatus(newRS, oldRSs);
  }

  #reconcileNewRS(newRS: KubeObject, oldRSs: KubeObject[]): boolean {
    const want = this.#spec.replicas;
    const current = specReplicas(newRS);
    if (current === want) return false;
    if (current > want) return this.#scaleAndRecord(newRS, want);
    return this.#scaleAndRecord(newRS, newRSNewReplicas(this.#d, this.#all(newRS, oldRSs), newRS));
  }

  /** reconcileOldReplicaSets: scale old ReplicaSets down as far as maxUnavailable allows. */
  #reconcileOldRSs(newRS: KubeObject, oldRSs: KubeObject[]): boolean {
    const s = this.#spec;
    const activeOld = oldRSs.map((rs) => this.#current(rs)).filter((rs) => specReplicas(rs) > 0);
    if (sum(activeOld, specReplicas) === 0) return false;
    const fresh = this.#current(newRS);
    const minAvailable = s.replicas - maxUnavailable(s);
    const newUnavailable = specReplicas(fresh) - availableReplicas(fresh);
    const maxScaledDown = sum([...activeOld, fresh], specReplicas) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // cleanupUnhealthyReplicas: first the old pods that are not available anyway, oldest ReplicaSet first.
    let cleaned = 0;
    for (const rs of [...activeOld].sort(byCreation)) {
      if (cleaned >= maxScaledDown) break;
      const cur = this.#current(rs);
      const unhealthy = specReplicas(cur) - availableReplicas(cur);
      if (specReplicas(cur) === 0 || unhealthy <= 0) continue;
      const down = Math.min(maxScaledDown - cleaned, unhealthy);
      this.#scaleAndRecord(cur, specReplicas(cur) - down);
      cleaned += down;
    }
    // scaleDownOldReplicaSetsForRollingUpdate: then available old pods beyond minAvailable.
    const old = activeOld.map((rs) => this.#current(rs));
    const available = sum([...old, this.#current(newRS)], availableReplicas);
    let scaledDown = 0;
    if (available > minAvailable) {
      const total = available - minAvailable;
      for (const rs of [...old].sort(byCreation)) {
        if (scaledDown >= total) break;
        if (specReplicas(rs) === 0) continue;
        const down = Math.min(specReplicas(rs), total - scaledDown);
        this.#scaleAndRecord(rs, specReplicas(rs) - down);
        scaledDown += down;
      }
    }
    return cleaned + scaledDown > 0;
  }

  #rolloutRecreate(): void {
    const first = this.#getAllAndSyncRevision(false);
    let newRS = first.newRS;
    const oldRSs = first.oldRSs;
    let scaledDown = false;
    for (const rs of oldRSs.filter((r) => specReplicas(r) > 0))
      scaledDown = this.#scaleAndRecord(rs, 0) || scaledDown;
    if (scaledDown || this.#oldPodsRunning(newRS, oldRSs)) return this.#syncRolloutStatus(newRS, oldRSs);
    newRS ??= this.#getAllAndSyncRevision(true).newRS;
    if (!newRS) return;
    this.#scaleAndRecord(this.#current(newRS), this.#spec.replicas);
    if (deploymentComplete(this.#d, obj(this.#d.status)))
      this.#cleanup(oldRSs.map((rs) => this.#current(rs)));
    this.#syncRolloutStatus(newRS, oldRSs);
  }

  /** oldPodsRunning: Recreate starts new pods only once no old pod runs (terminating ones included). */
  #oldPodsRunning(newRS: KubeObject | undefined, oldRSs: KubeObject[]): boolean {
    const old = oldRSs.map((rs) => this.#current(rs));
    if (sum(old, statusReplicas) > 0) return true;
    const oldUids = new Set(old.map((rs) => rs.metadata.uid));
    return this.#cluster.list('pods', this.#namespace).some((p) => {
      const uid = controllerOf(p)?.uid;
      if (uid === undefined || uid === newRS?.metadata.uid || !oldUids.has(uid)) return false;
      const phase = obj(p.status).phase;
      return phase !== 'Succeeded' && phase !== 'Failed';
    });
  }

  /** cleanupDeployment: delete the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
  #cleanup(oldRSs: KubeObject[]): void {
    const cleanable = oldRSs.filter((rs) => rs.metadata.deletionTimestamp === undefined);
    const surplus = cleanable.length - this.#spec.revisionHistoryLimit;
    if (surplus <= 0) return;
    const byRevision = [...cleanable].sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of byRevision.slice(0, surplus)) {
      const st = obj(rs.status);
      if (statusReplicas(rs) !== 0 || specReplicas(rs) !== 0) continue;
      if ((rs.metadata.generation ?? 1) > num(st.observedGeneration, 0)) continue;
      try {
        this.#cluster.delete(REPLICASETS, this.#namespace, rs.metadata.name ?? '', {
          preconditions: { uid: rs.metadata.uid ?? '' },
        });
      } catch (err) {
        if (!isApiError(err, 404) && !isApiError(err, 409)) throw err;
      }
    }
  }

  // --- status ----------------------------------------------------------------------------------------------

  /** checkPausedConditions: Progressing Unknown DeploymentPaused / DeploymentResumed. */
  #checkPausedConditions(): void {
    const status = pausedStatus(this.#d, this.#now);
    if (status) this.#writeStatus(status);
  }

  /** syncDeploymentStatus: the counts and Available, Progressing left as it is. */
  #syncStatus(all: KubeObject[], newRS: KubeObject | undefined): void {
    this.#writeStatus(calculateStatus(this.#d, all, newRS, this.#now));
  }

  /** syncRolloutStatus: the counts, Available, and Progressing as the rollout stands. */
  #syncRolloutStatus(newRS: KubeObject | undefined, oldRSs: KubeObject[]): void {
    const fresh = newRS && this.#current(newRS);
    const calculated = calculateStatus(this.#d, this.#all(newRS, oldRSs), fresh, this.#now);
    const old = oldRSs.map((rs) => this.#current(rs));
    const status = rolloutStatus(this.#d, calculated, fresh, old, this.#now);
    this.#writeStatus(status);
    const after = stuckRequeueMs(this.#d, status);
    if (after !== undefined) this.#queue.addAfter(this.#namespace, this.#name, after);
  }

  #writeStatus(status: JsonObject): void {
    const next = omitEmpty(status);
    if (canonicalJson(next) === canonicalJson(obj(this.#d.status))) return;
    const written = mutate(
      this.#cluster,
      'updateStatus',
      DEPLOYMENTS,
      this.#namespace,
      this.#name,
      this.#d.metadata.uid,
      (o) => ({ ...o, status: next }),
    );
    if (written) this.#d = written;
  }

  #event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(this.#cluster, this.#report, this.#d, { component: COMPONENT, reason, message, type });
  }
}
