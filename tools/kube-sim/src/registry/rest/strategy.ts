// A kind's strategy: what the generic store (store.ts) asks of each kind on create, update and delete, as
// the API server's RESTCreateStrategy / RESTUpdateStrategy / RESTDeleteStrategy. The generic strategy here
// serves every kind without rules of its own (custom resources among them); kinds/ holds the others.
import type { FieldCause, KubeObject, ResourceType } from '../../apimachinery/types.ts';
import type { Store } from '../../storage/store.ts';
import { defaultBuiltin, initialStatus } from './builtin-defaults.ts';
import type { Registry } from './resources.ts';
import type { WriteOptions } from './write-options.ts';
import { validateWorkload, validateWorkloadUpdate } from './workload-validation.ts';

/** What a strategy may read and change besides the object it is given. */
export interface StrategyContext {
  readonly store: Store;
  readonly registry: Registry;
  now(): number;
  /**
   * True when a namespace controller runs (it deletes a terminating namespace's content, then removes the
   * `kubernetes` finalizer).
   */
  readonly namespaceController: boolean;
}

export interface Strategy {
  /** The built-in kind has metadata.generation: its spec is acted on by a controller (custom resources all have). */
  readonly tracksGeneration: boolean;
  /** Deletion waits a grace period (pods): a delete may shorten a pending one. */
  readonly graceful: boolean;
  /** Defaults as decoding applies them, on every write (`old`: the stored object an update replaces). */
  defaults(obj: KubeObject, old?: KubeObject): KubeObject;
  /** Defaults only a new object gets, once its name and uid are known (a Job's generated selector). */
  defaultsOnCreate(obj: KubeObject, uid: string): KubeObject;
  validateCreate(obj: KubeObject): FieldCause[];
  validateUpdate(old: KubeObject, next: KubeObject, opts: WriteOptions): FieldCause[];
  /** The object as stored by a create, after validation: allocated fields, the initial status. */
  prepareForCreate(t: ResourceType, obj: KubeObject, ctx: StrategyContext): KubeObject;
  /** The object as stored by an update of the main resource, after validation. */
  prepareForUpdate(t: ResourceType, next: KubeObject, current: KubeObject, ctx: StrategyContext): KubeObject;
  /** Side effects once a write is committed. */
  afterCommit(obj: KubeObject, ctx: StrategyContext): void;
  /** Throws when the object may never be deleted. */
  checkDelete(t: ResourceType, name: string): void;
  /** The grace period of a delete (`requested`: the DeleteOptions' gracePeriodSeconds). */
  gracePeriod(obj: KubeObject, requested: number | undefined): number;
  /** The object as left by a delete that the kind itself carries out (undefined: the generic deletion). */
  beginDeletion(obj: KubeObject, finalizers: string[], ctx: StrategyContext): KubeObject | undefined;
  /** Whether an object being deleted can go now (finalizers are checked by the store). */
  readyToRemove(obj: KubeObject, nowMs: number): boolean;
  /** Before the object is removed: what goes with it. */
  beforeRemove(obj: KubeObject, ctx: StrategyContext): void;
  /** Once the object is removed. */
  afterRemove(gone: KubeObject, ctx: StrategyContext): void;
}

/** The built-ins whose spec a controller acts on (workloads, jobs, PDBs, HPAs, ingresses, network policies). */
const GENERATION_IDS = new Set([
  'replicationcontrollers',
  'deployments.apps',
  'replicasets.apps',
  'statefulsets.apps',
  'daemonsets.apps',
  'jobs.batch',
  'cronjobs.batch',
  'poddisruptionbudgets.policy',
  'horizontalpodautoscalers.autoscaling',
  'ingresses.networking.k8s.io',
  'networkpolicies.networking.k8s.io',
]);

/** The status a new object starts with: the kind's zero status, or none, when status is a subresource. */
function withInitialStatus(t: ResourceType, id: string, obj: KubeObject): KubeObject {
  if (!t.subresources.status) return obj;
  const { status: _s, ...rest } = obj;
  const status = initialStatus(id);
  return (status ? { ...rest, status } : rest) as KubeObject;
}

/** The strategy of a kind without rules of its own, by its resource id (`plural.group`). */
export function genericStrategy(id: string): Strategy {
  return {
    tracksGeneration: GENERATION_IDS.has(id),
    graceful: false,
    defaults: (obj, old) => defaultBuiltin(id, obj, old),
    defaultsOnCreate: (obj) => obj,
    validateCreate: (obj) => validateWorkload(id, obj),
    validateUpdate: (old, next) => [...validateWorkload(id, next), ...validateWorkloadUpdate(id, old, next)],
    prepareForCreate: (t, obj) => withInitialStatus(t, id, obj),
    prepareForUpdate: (_t, next) => next,
    afterCommit: () => {},
    checkDelete: () => {},
    gracePeriod: () => 0,
    beginDeletion: () => undefined,
    readyToRemove: () => true,
    beforeRemove: () => {},
    afterRemove: () => {},
  };
}
