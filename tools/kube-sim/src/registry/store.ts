// The generic store: the semantics of the verbs, shared by the HTTP handlers and the in-process
// controllers, for every kind — metadata, optimistic concurrency, generation, finalizers and graceful
// deletion, field validation and managed fields, admission — with each kind's own rules asked of its
// strategy (strategy.ts, kinds/). Subresources are in api.ts.
import { randomUUID } from 'node:crypto';
import { type AdmissionChain, admissionChain } from '../admission/chain.ts';
import { validateMetadata, validateName, nameRuleFor, randomSuffix } from '../apimachinery/validation.ts';
import {
  ApiError,
  type DeleteOptions,
  type KubeObject,
  type ObjectMeta,
  type ResourceType,
} from '../apimachinery/types.ts';
import { type Rec, recJson, type Store } from '../storage/store.ts';
import { needsConversion, toApiShape, toStorageShape } from './conversion.ts';
import { invalid, notFound, timestamp } from './rest/errors.ts';
import { validateFields } from './field-validation.ts';
import { refuseCreateWhileTerminating } from './kinds/crds.ts';
import { kindStrategies } from './kinds/index.ts';
import { type ListQuery, type ListResult, listObjects, type ObjectFilter, parseFilter } from './list.ts';
import { type Ownership, withOwnership } from './managed-fields-hook.ts';
import {
  checkDeletePreconditions,
  checkWritePreconditions,
  finalizersForPolicy,
  markedForDeletion,
  newFinalizerCauses,
  newObjectMeta,
  updatedObjectMeta,
} from './object-meta.ts';
import { checkBody, checkNameMatches, namespaceMismatch, refuseUndecodableBuiltin } from './request-body.ts';
import { apiVersionOf, type Registry, resourceId } from './rest/resources.ts';
import { genericStrategy, type Strategy, type StrategyContext } from './rest/strategy.ts';
import type { WriteOptions, WritePart } from './rest/write-options.ts';

export type DeleteRequest = DeleteOptions & { orphanDependents?: boolean };
export interface DeleteResult {
  object: KubeObject;
  removed: boolean;
}

export class GenericStore implements StrategyContext {
  readonly store: Store;
  readonly registry: Registry;
  now: () => number = () => Date.now();
  /**
   * True when a namespace controller runs (it deletes a terminating namespace's content, then removes the
   * `kubernetes` finalizer). Without one, deleting a namespace removes its content at once.
   */
  namespaceController = false;
  /** Every create and update of a main resource passes it (the default plugins unless given). */
  readonly admission: AdmissionChain;
  private readonly strategies = kindStrategies();

  constructor(store: Store, registry: Registry, admission?: AdmissionChain) {
    this.store = store;
    this.registry = registry;
    this.admission = admission ?? admissionChain({ store, registry });
  }

  /** The strategy of a resource (by its id, so every version of a resource has the same). */
  strategyOf(t: ResourceType): Strategy {
    const id = resourceId(t);
    let s = this.strategies.get(id);
    if (!s) this.strategies.set(id, (s = genericStrategy(id)));
    return s;
  }

  /** The object as seen through a version of its resource (CRDs store one version, serve several). */
  present(t: ResourceType, obj: KubeObject): KubeObject {
    const av = apiVersionOf(t);
    if (obj.apiVersion === av) return obj;
    return needsConversion(t) ? toApiShape(t, obj) : { ...obj, apiVersion: av };
  }

  /** JSON text of a stored object as seen through `t`, using the cached serialization when possible. */
  jsonOf(t: ResourceType, rec: Rec): string {
    return rec.obj.apiVersion === apiVersionOf(t) ? recJson(rec) : JSON.stringify(this.present(t, rec.obj));
  }

  /**
   * Whether a kind has metadata.generation, as in kube-apiserver: custom resources, CRDs and the built-ins
   * whose spec is acted on by a controller (workloads, jobs, PDBs, HPAs, ingresses, network policies).
   */
  tracksGeneration(t: ResourceType): boolean {
    return this.registry.isCrdType(t) || this.strategyOf(t).tracksGeneration;
  }

  /** JSON text of an object just returned by a write: the stored serialization is reused (and cached). */
  jsonFor(t: ResourceType, obj: KubeObject): string {
    const rec = this.store.get(
      resourceId(t),
      t.namespaced ? obj.metadata.namespace : undefined,
      obj.metadata.name ?? '',
    );
    if (rec && rec.obj === obj) return recJson(rec);
    return JSON.stringify(obj);
  }

  private toStorage(t: ResourceType, obj: KubeObject): KubeObject {
    const st = t.storage !== false ? t : (this.registry.byResourceId(resourceId(t)) ?? t);
    if (st === t) return obj;
    return needsConversion(t)
      ? toStorageShape(t, obj, apiVersionOf(st))
      : { ...obj, apiVersion: apiVersionOf(st) };
  }

  private checkNamespace(t: ResourceType, ns: string | undefined, name: string): void {
    if (!ns)
      throw new ApiError(
        400,
        'BadRequest',
        'the server could not find the requested resource (namespace required)',
      );
    const rec = this.store.get('namespaces', undefined, ns);
    if (!rec) {
      throw new ApiError(404, 'NotFound', `namespaces "${ns}" not found`, {
        details: { name: ns, kind: 'namespaces' },
      });
    }
    // The NamespaceLifecycle admission plugin's refusal, in its words (a generated name shows as its prefix).
    if (rec.obj.metadata.deletionTimestamp) {
      throw new ApiError(
        403,
        'Forbidden',
        `${resourceId(t)} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        {
          details: { name, group: t.group, kind: t.plural },
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${ns} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }

  getRec(t: ResourceType, ns: string | undefined, name: string): Rec {
    const rec = this.store.get(resourceId(t), t.namespaced ? ns : undefined, name);
    if (!rec) throw notFound(t, name);
    return rec;
  }

  get(t: ResourceType, ns: string | undefined, name: string): KubeObject {
    return this.present(t, this.getRec(t, ns, name).obj);
  }

  // ---------------------------------------------------------------- lists

  filterFor(t: ResourceType, labelSelector?: string, fieldSelector?: string): ObjectFilter | undefined {
    return parseFilter(t, labelSelector, fieldSelector, (rt, o) => this.present(rt, o)).filter;
  }

  list(t: ResourceType, ns: string | undefined, q: ListQuery): ListResult {
    return listObjects(this.store, t, ns, q, (rt, o) => this.present(rt, o));
  }

  // ---------------------------------------------------------------- create

  /** The namespace a create writes into: the URL's, or the body's (which must agree). */
  private createNamespace(t: ResourceType, ns: string | undefined, m: ObjectMeta): string | undefined {
    if (!t.namespaced) return undefined;
    if (m.namespace && ns && m.namespace !== ns) throw namespaceMismatch();
    ns = ns ?? m.namespace;
    this.checkNamespace(t, ns, String(m.name || m.generateName || 'Unknown'));
    return ns;
  }

  /** The name a create gives the object: the body's, or one generated from metadata.generateName. */
  private createName(t: ResourceType, ns: string | undefined, m: ObjectMeta): string {
    if (m.name) return m.name;
    if (!m.generateName) {
      throw invalid(t, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    }
    const id = resourceId(t);
    const base = String(m.generateName);
    const prefixCauses = validateName(`${base}x`, nameRuleFor(id), 'metadata.generateName');
    if (prefixCauses.length) throw invalid(t, base, prefixCauses);
    let name = '';
    for (let attempt = 0; attempt < 8; attempt++) {
      name = base.slice(0, 58) + randomSuffix();
      if (!this.store.get(id, ns, name)) break;
    }
    return name;
  }

  create(t: ResourceType, ns: string | undefined, body: unknown, opts: WriteOptions = {}): KubeObject {
    const strategy = this.strategyOf(t);
    refuseUndecodableBuiltin(t, this.registry.isCrdType(t), body);
    if (this.registry.isCrdType(t)) refuseCreateWhileTerminating(t, this);
    let obj = checkBody(t, body);
    const id = resourceId(t);
    const m = obj.metadata;
    ns = this.createNamespace(t, ns, m);
    const name = this.createName(t, ns, m);
    const uid = randomUUID();
    // Defaults first, as decoding applies them; a Job's generated selector needs its name and uid.
    obj = strategy.defaults({ ...obj, metadata: { ...obj.metadata, name, uid } });
    obj = strategy.defaultsOnCreate(obj, uid);
    const causes = validateName(name, nameRuleFor(id));
    causes.push(...validateMetadata(obj));
    causes.push(...strategy.validateCreate(obj));
    if (causes.length) throw invalid(t, name, causes);
    if (this.store.get(id, ns, name)) {
      throw new ApiError(409, 'AlreadyExists', `${id} "${name}" already exists`, {
        details: { name, group: t.group, kind: t.plural },
      });
    }
    const generation = this.tracksGeneration(t);
    const meta = newObjectMeta(m, obj.metadata.labels, {
      name,
      namespace: ns,
      uid,
      generation,
      nowMs: this.now(),
    });
    let out: KubeObject = { ...obj, metadata: meta };
    out = validateFields(t, this.registry.isCrdType(t), out, opts, name);
    out = strategy.prepareForCreate(t, out, this);
    const stored = this.toStorage(t, out);
    stored.metadata = this.ownership(t, undefined, stored, m, opts, 'main').metadata;
    this.admit(t, stored, undefined, opts);
    if (opts.dryRun) return this.present(t, stored);
    const saved = this.store.put(id, stored);
    strategy.afterCommit(saved, this);
    return this.present(t, saved);
  }

  /** The admission chain's verdict on an object about to be stored (`old` undefined on create). */
  private admit(t: ResourceType, object: KubeObject, old: KubeObject | undefined, opts: WriteOptions): void {
    this.admission.validate({
      operation: old ? 'UPDATE' : 'CREATE',
      resource: t,
      object,
      oldObject: old,
      requester: opts.requester,
      nowMs: this.now(),
    });
  }

  private ownership(
    t: ResourceType,
    live: KubeObject | undefined,
    next: KubeObject,
    given: ObjectMeta,
    opts: WriteOptions,
    part: WritePart,
  ): Ownership {
    const isCrd = this.registry.isCrdType(t);
    return withOwnership(t, isCrd, live, next, given.managedFields, opts, part, this.now());
  }

  // ---------------------------------------------------------------- update

  /** PUT of the main resource. */
  update(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): KubeObject {
    return this.put(t, ns, name, body, opts, 'main');
  }

  /** PUT of the status subresource: only `.status` changes. */
  updateStatus(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): KubeObject {
    if (!t.subresources.status) throw notFound(t, name);
    return this.put(t, ns, name, body, opts, 'status');
  }

  /** A PUT's body checked, then written over the stored object. */
  private put(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions,
    part: WritePart,
  ): KubeObject {
    refuseUndecodableBuiltin(t, this.registry.isCrdType(t), body);
    const obj = checkBody(t, body);
    checkNameMatches(obj, name, ns, t);
    const rec = this.getRec(t, ns, name);
    return this.writeUpdate(t, rec.obj, obj, opts, part);
  }

  /** The stored object with the incoming status (the status subresource changes nothing else). */
  private statusUpdate(current: KubeObject, incoming: KubeObject): KubeObject {
    const { status: _old, ...rest } = current;
    const next = { ...rest, metadata: current.metadata } as KubeObject;
    if (incoming.status !== undefined) next.status = incoming.status;
    return { ...next, apiVersion: incoming.apiVersion };
  }

  /** The incoming object as an update of the main resource: server-owned metadata kept, defaulted, validated. */
  private mainUpdate(
    t: ResourceType,
    current: KubeObject,
    incoming: KubeObject,
    opts: WriteOptions,
  ): KubeObject {
    const strategy = this.strategyOf(t);
    const cm = current.metadata;
    const next = strategy.defaults(
      { ...incoming, metadata: updatedObjectMeta(cm, incoming.metadata) },
      current,
    );
    if (t.subresources.status) {
      if (current.status !== undefined) next.status = current.status;
      else delete next.status;
    }
    const causes = validateMetadata(next);
    causes.push(...strategy.validateUpdate(current, next, opts));
    if (causes.length) throw invalid(t, cm.name as string, causes);
    const finalizerCauses = newFinalizerCauses(cm, next.metadata);
    if (finalizerCauses.length) throw invalid(t, cm.name as string, finalizerCauses);
    return next;
  }

  /** The common update path: `incoming` is the full new object (from PUT, or a patch applied to the current). */
  writeUpdate(
    t: ResourceType,
    current: KubeObject,
    incoming: KubeObject,
    opts: WriteOptions,
    part: WritePart,
  ): KubeObject {
    const strategy = this.strategyOf(t);
    const id = resourceId(t);
    const name = current.metadata.name as string;
    checkWritePreconditions(t, current.metadata, incoming.metadata);
    let next =
      part === 'status' ? this.statusUpdate(current, incoming) : this.mainUpdate(t, current, incoming, opts);
    const old = t.schema ? this.present(t, current) : undefined;
    next = validateFields(t, this.registry.isCrdType(t), next, opts, name, old);
    if (part === 'main') next = strategy.prepareForUpdate(t, next, current, this);
    next = this.toStorage(t, next);
    if (part === 'main' && this.tracksGeneration(t) && specChanged(next, current, !!t.subresources.status)) {
      next.metadata = { ...next.metadata, generation: (current.metadata.generation ?? 1) + 1 };
    }
    const owned = this.ownership(t, current, next, incoming.metadata, opts, part);
    next.metadata = owned.metadata;
    // A no-op update changes nothing: no new resourceVersion, no event.
    if (owned.same) return this.present(t, current);
    if (!owned.compared && JSON.stringify(next) === JSON.stringify(current)) return this.present(t, current);
    // The status subresource changes neither metadata nor anything quota counts: no plugin judges it.
    if (part === 'main') this.admit(t, next, current, opts);
    if (opts.dryRun) return this.present(t, next);
    if (this.readyToRemove(strategy, next)) {
      const gone = this.store.remove(id, current.metadata.namespace, name) as KubeObject;
      strategy.afterRemove(gone, this);
      return this.present(t, gone);
    }
    const saved = this.store.put(id, next);
    strategy.afterCommit(saved, this);
    return this.present(t, saved);
  }

  private readyToRemove(strategy: Strategy, obj: KubeObject): boolean {
    const m = obj.metadata;
    if (!m.deletionTimestamp || (m.finalizers?.length ?? 0) > 0) return false;
    return strategy.readyToRemove(obj, this.now());
  }

  // ---------------------------------------------------------------- delete

  /** Returns the object as left: with deletionTimestamp when deletion is pending, or its final state. */
  delete(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    options: DeleteRequest = {},
    opts: WriteOptions = {},
  ): DeleteResult {
    const strategy = this.strategyOf(t);
    const cur = this.getRec(t, ns, name).obj;
    checkDeletePreconditions(t, cur.metadata, options);
    strategy.checkDelete(t, name);
    const requested = options.gracePeriodSeconds;
    if (requested !== undefined && (!Number.isInteger(requested) || requested < 0) && requested !== -1)
      throw new ApiError(400, 'BadRequest', 'gracePeriodSeconds must be >= 0');
    const finalizers = finalizersForPolicy(cur.metadata, options);
    const grace = strategy.gracePeriod(cur, requested);
    if (cur.metadata.deletionTimestamp) return this.deleteAgain(t, strategy, cur, grace, opts);
    const begun = strategy.beginDeletion(cur, finalizers, this);
    if (begun) return this.keepDeleting(t, begun, opts);
    if (finalizers.length === 0 && grace === 0) {
      if (opts.dryRun) return { object: this.present(t, cur), removed: true };
      return this.removeNow(t, cur);
    }
    return this.keepDeleting(t, markedForDeletion(cur, grace, this.now(), finalizers), opts);
  }

  /** A delete of an object being deleted: a shorter grace period may hasten it; nothing else changes. */
  private deleteAgain(
    t: ResourceType,
    strategy: Strategy,
    cur: KubeObject,
    grace: number,
    opts: WriteOptions,
  ): DeleteResult {
    if (!strategy.graceful || grace >= (cur.metadata.deletionGracePeriodSeconds ?? 0))
      return { object: this.present(t, cur), removed: false };
    const next = markedForDeletion(cur, grace, this.now());
    if (opts.dryRun) return { object: this.present(t, next), removed: false };
    if (this.readyToRemove(strategy, next)) return this.removeNow(t, cur);
    return { object: this.present(t, this.store.put(resourceId(t), next)), removed: false };
  }

  /** Stores an object whose deletion is now pending. */
  private keepDeleting(t: ResourceType, next: KubeObject, opts: WriteOptions): DeleteResult {
    if (opts.dryRun) return { object: this.present(t, next), removed: false };
    return { object: this.present(t, this.store.put(resourceId(t), next)), removed: false };
  }

  private removeNow(t: ResourceType, cur: KubeObject): DeleteResult {
    const strategy = this.strategyOf(t);
    strategy.beforeRemove(cur, this);
    const gone = this.store.remove(
      resourceId(t),
      cur.metadata.namespace,
      cur.metadata.name as string,
    ) as KubeObject;
    strategy.afterRemove(gone, this);
    return { object: this.present(t, gone), removed: true };
  }

  /** Removes now, ignoring grace periods; finalizers still block (then the removal happens when they go). */
  forceRemove(t: ResourceType, ns: string | undefined, name: string): void {
    const id = resourceId(t);
    const rec = this.store.get(id, t.namespaced ? ns : undefined, name);
    if (!rec) return;
    const m = rec.obj.metadata;
    if (m.finalizers?.length) {
      if (m.deletionGracePeriodSeconds !== 0 || !m.deletionTimestamp) {
        this.store.put(id, {
          ...rec.obj,
          metadata: {
            ...m,
            deletionTimestamp: m.deletionTimestamp ?? timestamp(this.now()),
            deletionGracePeriodSeconds: 0,
          },
        });
      }
      return;
    }
    this.removeNow(t, rec.obj);
  }

  deleteCollection(
    t: ResourceType,
    ns: string | undefined,
    q: ListQuery,
    options: DeleteRequest,
    opts: WriteOptions = {},
  ): KubeObject[] {
    const { items } = this.list(t, ns, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
    const out: KubeObject[] = [];
    for (const r of items) {
      try {
        out.push(
          this.delete(t, r.obj.metadata.namespace, r.obj.metadata.name as string, options, opts).object,
        );
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    return out;
  }
}

/** Whether the spec (all but metadata, and but status when status is a subresource) differs. */
function specChanged(a: KubeObject, b: KubeObject, statusSubresource: boolean): boolean {
  return specOf(a, statusSubresource) !== specOf(b, statusSubresource);
}

function specOf(obj: KubeObject, statusSubresource: boolean): string {
  const { metadata: _m, status, ...rest } = obj;
  return JSON.stringify(statusSubresource ? rest : { ...rest, status });
}
