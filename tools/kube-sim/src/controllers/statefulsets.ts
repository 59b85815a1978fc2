// StatefulSet controller, as kube-controller-manager's (pkg/controller/statefulset) for the common cases:
// pods named `<set>-<ordinal>` (from spec.ordinals.start, default 0) with the labels
// statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index and controller-revision-hash, hostname
// and subdomain (spec.serviceName), a controller ownerReference; OrderedReady (the default: ordinal i+1 is
// created only once every lower one is Running and Ready, scale-down deletes the highest ordinal first and
// one at a time) or Parallel; a failed pod is deleted and made again; a PersistentVolumeClaim per
// volumeClaimTemplate and ordinal (`<claim>-<set>-<ordinal>`, created when missing and kept, as the default
// Retain policy does), mounted as the pod's volume of that name. A template change is a new
// ControllerRevision (`<set>-<hash>`); RollingUpdate replaces the pods at or above the partition, highest
// ordinal first, one at a time once the others are Ready; OnDelete waits for pods to be deleted.
// Status: replicas, readyReplicas, availableReplicas (minReadySeconds), currentReplicas, updatedReplicas,
// currentRevision, updateRevision (current once every pod is updated and ready), observedGeneration.
// Not done: maxUnavailable, persistentVolumeClaimRetentionPolicy Delete, revisionHistoryLimit (old
// revisions are kept), binding the claims (they stay Pending: kube-sim has no volume provisioner).
import {
  ApiError,
  type ClusterAccess,
  type JsonObject,
  type KubeObject,
  type StoreEvent,
} from '../apimachinery/types.ts';
import { KeyedQueue } from './keyed-queue.ts';
import { recordEvent } from './object-events.ts';
import {
  availableInMs,
  claimPods,
  controllerOf,
  controllerRef,
  isPodReady,
  num,
  obj,
  podFromTemplate,
  selectorMatcher,
  type Owner,
} from './pod-replicas.ts';
import { isTerminal } from './pod-status.ts';
import { canonicalJson, podTemplateHash } from './pod-template-hash.ts';
import { isApiError, mutate, type ErrorReporter } from './util.ts';

export const STATEFULSETS = 'statefulsets.apps';
const REVISIONS = 'controllerrevisions.apps';
const COMPONENT = 'statefulset-controller';
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
export const REVISION_LABEL = 'controller-revision-hash';
/** How long a sync waits to try a refused pod create again. */
const FAILED_CREATE_RETRY_MS = 1000;

export interface StatefulSetController {
  stop(): void;
}

/** The ordinal of a pod of `set`, or undefined when its name is not `<set>-<n>`. */
export function ordinalOf(setName: string, podName: string | undefined): number | undefined {
  if (podName === undefined || !podName.startsWith(`${setName}-`)) return undefined;
  const rest = podName.slice(setName.length + 1);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

const isRunningAndReady = (p: KubeObject): boolean =>
  obj(p.status).phase === 'Running' && isPodReady(p) && p.metadata.deletionTimestamp === undefined;

export function startStatefulSetController(
  cluster: ClusterAccess,
  report: ErrorReporter,
): StatefulSetController {
  const queue = new KeyedQueue('statefulset controller', report, (namespace, name) => {
    const set = cluster.get(STATEFULSETS, namespace, name);
    if (set) new StatefulSetSync(cluster, report, queue, set).run();
  });

  /** Events of its pods: the keys they concern (orphans go to the sets whose selector matches them). */
  function handle(event: StoreEvent): void {
    if (event.resource !== 'pods') return;
    const o = event.object;
    const namespace = o.metadata.namespace ?? '';
    const ref = controllerOf(o);
    if (ref) {
      if (ref.kind === 'StatefulSet') queue.add(namespace, ref.name);
    } else if (event.type !== 'DELETED') {
      for (const set of cluster.list(STATEFULSETS, namespace)) {
        if (selectorMatcher(obj(set.spec).selector)(o.metadata.labels))
          queue.add(namespace, set.metadata.name ?? '');
      }
    }
  }

  return queue.run(cluster, STATEFULSETS, handle);
}

/** One sync of one StatefulSet: its revision, then at most the pod steps its policy allows, then status. */
class StatefulSetSync {
  readonly #cluster: ClusterAccess;
  readonly #report: ErrorReporter;
  readonly #queue: KeyedQueue;
  readonly #set: KubeObject;
  readonly #owner: Owner;
  readonly #namespace: string;
  readonly #name: string;
  readonly #spec: JsonObject;
  readonly #template: JsonObject;
  readonly #replicas: number;
  readonly #start: number;
  readonly #ordered: boolean;
  #updateRevision = '';
  #currentRevision = '';

  constructor(cluster: ClusterAccess, report: ErrorReporter, queue: KeyedQueue, set: KubeObject) {
    this.#cluster = cluster;
    this.#report = report;
    this.#queue = queue;
    this.#set = set;
    this.#owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', object: set };
    this.#namespace = set.metadata.namespace ?? 'default';
    this.#name = set.metadata.name ?? '';
    this.#spec = obj(set.spec);
    this.#template = obj(this.#spec.template);
    this.#replicas = num(this.#spec.replicas, 1);
    this.#start = num(obj(this.#spec.ordinals).start, 0);
    this.#ordered = this.#spec.podManagementPolicy !== 'Parallel';
  }

  run(): void {
    this.#updateRevision = this.#ensureRevision();
    this.#currentRevision = String(obj(this.#set.status).currentRevision ?? '') || this.#updateRevision;
    const pods = claimPods(this.#cluster, this.#owner, selectorMatcher(this.#spec.selector));
    const byOrdinal = new Map<number, KubeObject>();
    for (const p of pods) {
      const i = ordinalOf(this.#name, p.metadata.name);
      if (i !== undefined) byOrdinal.set(i, p);
    }
    // A set being deleted gets no new pods; the garbage collector takes the ones it has.
    if (this.#set.metadata.deletionTimestamp === undefined) this.#step(byOrdinal);
    this.#writeStatus(byOrdinal);
  }

  /** Creates, replaces, deletes and updates pods: in order and one at a time unless Parallel. */
  #step(byOrdinal: Map<number, KubeObject>): void {
    const end = this.#start + this.#replicas;
    let blocked = false;
    for (let i = this.#start; i < end; i++) {
      const pod = byOrdinal.get(i);
      if (pod === undefined) {
        if (!this.#createPod(i)) return;
        if (this.#ordered) return;
        blocked = true;
      } else if (isTerminal(pod) && pod.metadata.deletionTimestamp === undefined) {
        // A failed (or exited) pod is deleted and made again, as the real controller does.
        this.#deletePod(pod, 'delete');
        if (this.#ordered) return;
        blocked = true;
      } else if (!isRunningAndReady(pod)) {
        if (this.#ordered) return;
        blocked = true;
      }
    }
    // Pods beyond the replicas, highest ordinal first: one at a time, each waited for, when ordered.
    const condemned = [...byOrdinal.entries()]
      .filter(([i]) => i < this.#start || i >= end)
      .sort(([a], [b]) => b - a)
      .map(([, p]) => p);
    for (const pod of condemned) {
      if (pod.metadata.deletionTimestamp !== undefined) {
        if (this.#ordered) return;
        continue;
      }
      this.#deletePod(pod, 'delete');
      if (this.#ordered) return;
    }
    if (blocked || condemned.length > 0) return;
    this.#rollingUpdate(byOrdinal);
  }

  /** RollingUpdate: the highest pod at or above the partition not of the update revision is deleted. */
  #rollingUpdate(byOrdinal: Map<number, KubeObject>): void {
    const strategy = obj(this.#spec.updateStrategy);
    if ((strategy.type ?? 'RollingUpdate') !== 'RollingUpdate') return;
    const partition = num(obj(strategy.rollingUpdate).partition, 0);
    for (let i = this.#start + this.#replicas - 1; i >= this.#start + partition; i--) {
      const pod = byOrdinal.get(i);
      if (pod === undefined || !isRunningAndReady(pod)) return;
      if (pod.metadata.labels?.[REVISION_LABEL] !== this.#updateRevision) {
        this.#deletePod(pod, 'terminate');
        return;
      }
    }
  }

  /** The pod of ordinal i, with its claims; false (after a FailedCreate Event) when it was refused. */
  #createPod(i: number): boolean {
    const podName = `${this.#name}-${i}`;
    const strategy = obj(this.#spec.updateStrategy);
    // Below a RollingUpdate's partition a pod is made again at the current revision; elsewhere (OnDelete
    // included: the pod you deleted) at the update revision.
    const partition = num(obj(strategy.rollingUpdate).partition, 0);
    const revision =
      strategy.type !== 'OnDelete' && i - this.#start < partition
        ? this.#currentRevision
        : this.#updateRevision;
    const template = revision === this.#updateRevision ? this.#template : this.#revisionTemplate(revision);
    const pod = podFromTemplate(this.#owner, template, {
      labels: { [POD_NAME_LABEL]: podName, [POD_INDEX_LABEL]: String(i), [REVISION_LABEL]: revision },
    });
    delete pod.metadata.generateName;
    pod.metadata.name = podName;
    const spec: JsonObject = { ...obj(pod.spec), hostname: podName };
    if (typeof this.#spec.serviceName === 'string' && this.#spec.serviceName)
      spec.subdomain = this.#spec.serviceName;
    const claims = this.#claimVolumes(i);
    if (claims.length) {
      const names = new Set(claims.map((c) => c.name));
      const others = Array.isArray(spec.volumes)
        ? spec.volumes.map(obj).filter((v) => !names.has(v.name))
        : [];
      spec.volumes = [...others, ...claims];
    }
    pod.spec = spec;
    try {
      this.#cluster.create('pods', pod);
    } catch (err) {
      if (isApiError(err, 409)) return true;
      if (!(err instanceof ApiError)) throw err;
      this.#event(
        'FailedCreate',
        `create Pod ${podName} in StatefulSet ${this.#name} failed error: ${err.message}`,
        'Warning',
      );
      this.#queue.addAfter(this.#namespace, this.#name, FAILED_CREATE_RETRY_MS);
      return false;
    }
    this.#event('SuccessfulCreate', `create Pod ${podName} in StatefulSet ${this.#name} successful`);
    return true;
  }

  /** The claim of each volumeClaimTemplate for ordinal i (created if missing), as pod volumes. */
  #claimVolumes(i: number): JsonObject[] {
    const templates = Array.isArray(this.#spec.volumeClaimTemplates)
      ? this.#spec.volumeClaimTemplates.map(obj)
      : [];
    const matchLabels = obj(obj(this.#spec.selector).matchLabels) as Record<string, string>;
    return templates.map((t) => {
      const meta = obj(t.metadata);
      const claimName = `${String(meta.name)}-${this.#name}-${i}`;
      if (this.#cluster.get('persistentvolumeclaims', this.#namespace, claimName) === undefined) {
        try {
          this.#cluster.create('persistentvolumeclaims', {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: {
              name: claimName,
              namespace: this.#namespace,
              labels: { ...(obj(meta.labels) as Record<string, string>), ...matchLabels },
              ...(meta.annotations !== undefined
                ? { annotations: obj(meta.annotations) as Record<string, string> }
                : {}),
            },
            spec: obj(t.spec),
          });
          this.#event(
            'SuccessfulCreate',
            `create Claim ${claimName} Pod ${this.#name}-${i} in StatefulSet ${this.#name} success`,
          );
        } catch (err) {
          if (!isApiError(err, 409)) throw err;
        }
      }
      return { name: meta.name ?? null, persistentVolumeClaim: { claimName } };
    });
  }

  #deletePod(pod: KubeObject, verb: 'delete' | 'terminate'): void {
    const podName = pod.metadata.name ?? '';
    try {
      this.#cluster.delete('pods', this.#namespace, podName);
    } catch (err) {
      if (!isApiError(err, 404)) throw err;
      return;
    }
    this.#event('SuccessfulDelete', `${verb} Pod ${podName} in StatefulSet ${this.#name} successful`);
  }

  /** The ControllerRevision of the current template (`<set>-<hash>`), made if missing; its hash label value. */
  #ensureRevision(): string {
    const collisionCount = num(obj(this.#set.status).collisionCount, 0);
    const revisionName = `${this.#name}-${podTemplateHash(this.#template, collisionCount || undefined)}`;
    if (this.#cluster.get(REVISIONS, this.#namespace, revisionName) !== undefined) return revisionName;
    const mine = this.#cluster
      .list(REVISIONS, this.#namespace)
      .filter((r) => controllerOf(r)?.uid === this.#set.metadata.uid);
    const revision = Math.max(0, ...mine.map((r) => num((r as { revision?: number }).revision, 0))) + 1;
    try {
      this.#cluster.create(REVISIONS, {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: revisionName,
          namespace: this.#namespace,
          labels: {
            ...(obj(obj(this.#spec.selector).matchLabels) as Record<string, string>),
            [REVISION_LABEL]: revisionName,
          },
          ownerReferences: [controllerRef(this.#owner)],
        },
        data: { spec: { template: { ...this.#template, $patch: 'replace' } } },
        revision,
      } as KubeObject);
    } catch (err) {
      if (!isApiError(err, 409)) throw err;
    }
    return revisionName;
  }

  /** The template a revision recorded (the set's own when the revision is gone). */
  #revisionTemplate(revisionName: string): JsonObject {
    const r = this.#cluster.get(REVISIONS, this.#namespace, revisionName) as
      (KubeObject & { data?: JsonObject }) | undefined;
    const recorded = obj(obj(obj(r?.data).spec).template);
    if (Object.keys(recorded).length === 0) return this.#template;
    const { $patch: _patch, ...template } = recorded;
    return template;
  }

  #writeStatus(byOrdinal: Map<number, KubeObject>): void {
    const minReadySeconds = num(this.#spec.minReadySeconds, 0);
    const now = Date.now();
    let replicas = 0;
    let ready = 0;
    let available = 0;
    let current = 0;
    let updated = 0;
    let recheckInMs: number | undefined;
    for (const p of byOrdinal.values()) {
      if (isTerminal(p)) continue;
      replicas++;
      const revision = p.metadata.labels?.[REVISION_LABEL];
      if (revision === this.#currentRevision) current++;
      if (revision === this.#updateRevision) updated++;
      if (obj(p.status).phase !== 'Running' || p.metadata.deletionTimestamp !== undefined) continue;
      const inMs = availableInMs(p, minReadySeconds, now);
      if (inMs === undefined) continue;
      ready++;
      if (inMs === 0) available++;
      else recheckInMs = Math.min(recheckInMs ?? inMs, inMs);
    }
    if (recheckInMs !== undefined) this.#queue.addAfter(this.#namespace, this.#name, recheckInMs + 5);
    let currentRevision = this.#currentRevision;
    // The rollout is done once every pod is of the update revision and ready: it becomes the current one.
    const rolling = (obj(this.#spec.updateStrategy).type ?? 'RollingUpdate') === 'RollingUpdate';
    if (rolling && updated === this.#replicas && ready === this.#replicas && replicas === this.#replicas) {
      currentRevision = this.#updateRevision;
      current = updated;
    }
    const old = obj(this.#set.status);
    const status: JsonObject = {
      observedGeneration: this.#set.metadata.generation ?? 1,
      replicas,
      readyReplicas: ready,
      currentReplicas: current,
      updatedReplicas: updated,
      currentRevision,
      updateRevision: this.#updateRevision,
      collisionCount: num(old.collisionCount, 0),
      availableReplicas: available,
    };
    // Key order may differ from what the store gave back: compare canonically, or each write would sync again.
    if (canonicalJson(old) === canonicalJson(status)) return;
    mutate(
      this.#cluster,
      'updateStatus',
      STATEFULSETS,
      this.#namespace,
      this.#name,
      this.#set.metadata.uid,
      (o) => ({
        ...o,
        status,
      }),
    );
  }

  #event(reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): void {
    recordEvent(this.#cluster, this.#report, this.#set, { component: COMPONENT, reason, message, type });
  }
}
