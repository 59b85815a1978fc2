// The semantics of the verbs, shared by the HTTP handlers and in-process controllers: metadata, optimistic
// concurrency, generation, finalizers and graceful deletion, subresources, CRD schemas, lists and paging.
import { OBJECT_META_FIELDS } from '../apiextensions/structural.ts';
import { randomUUID } from 'node:crypto';
import { unknownBuiltinFields } from '../apimachinery/fieldcheck.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/patch.ts';
import { needsConversion, toApiShape, toStorageShape } from './conversion.ts';
import { apiResourceId, apiVersionOf, type Registry, resourceId } from './resources.ts';
import {
  checkFieldSelectorSupported,
  type FieldSelector,
  type LabelSelector,
  labelSelectorEqualities,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  selectableFields,
} from '../apimachinery/selectors.ts';
import {
  applyCrdDefaults,
  applyDefaults,
  crdResourceTypes,
  pruneUnknownFields,
  validateAgainstSchema,
  validateCrd,
} from '../apiextensions/schema.ts';
import { compareKeys, type Rec, recJson, type Store } from '../storage/store.ts';
import {
  ApiError,
  type DeleteOptions,
  type FieldCause,
  type Json,
  type JsonObject,
  type KubeObject,
  type ObjectMeta,
  type ResourceType,
} from '../apimachinery/types.ts';
import { defaultBuiltin, generateJobSelector, initialStatus } from './builtin-defaults.ts';
import { validateBuiltinCreate, validateBuiltinUpdate } from './builtin-validation.ts';
import { preparePod } from './pod-defaults.ts';
import { checkQuota } from '../admission/resource-quota.ts';
import { prepareResourceQuota } from './quota-validation.ts';
import { recordUpdate } from '../fieldmanager/managed-fields.ts';
import { typeViewOf } from '../fieldmanager/field-types.ts';
import {
  invalidPatch,
  patchShown,
  refuseUndecodable,
  refuseUndecodablePatch,
} from '../apimachinery/type-check.ts';
import { scaleCauses } from './scale-validation.ts';
import { nameRuleFor, randomSuffix, validateMetadata, validateName } from '../apimachinery/validation.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /** Filled with warnings for the `Warning` response header. */
  warnings?: string[];
  /** Set by pods/binding, the one write that may set a pod's spec.nodeName. */
  binding?: boolean;
  /** Who writes, for metadata.managedFields (in-process writes: `kube-sim`). */
  fieldManager?: string;
  /** The managedFields to store, when the write worked them out itself (an apply). */
  managedFields?: Json[];
  /** A write through the scale subresource (recorded as such in managedFields). */
  subresource?: 'scale';
  /** Set by a patch: how a refusal shows it (the result of a patch that does not decode is refused on the field `patch`). */
  patchShown?: () => string;
  /** Keys the request's JSON body repeats (their paths), refused or warned about as unknown fields are. */
  duplicateFields?: string[];
  /** Validating admission of a write of the main resource (`current` undefined on create); throws to refuse. */
  admit?: (t: ResourceType, next: KubeObject, current: KubeObject | undefined) => void;
}

export interface ListQuery {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number | undefined;
  continue?: string | undefined;
  resourceVersion?: string | undefined;
  resourceVersionMatch?: string | undefined;
}

export interface ListResult {
  resourceVersion: number;
  items: Rec[];
  continue?: string;
  remainingItemCount?: number;
}

export type ObjectFilter = (obj: KubeObject) => boolean;

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
  'customresourcedefinitions.apiextensions.k8s.io',
]);
const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

let lastSecond = -1;
let lastStamp = '';
/** RFC 3339 with second precision, as metav1.Time. */
export function timestamp(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastStamp = new Date(sec * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastStamp;
}

/** `Pod`, `Deployment.apps`: how error messages name a kind. */
export function qualifiedKind(t: ResourceType): string {
  return t.group ? `${t.kind}.${t.group}` : t.kind;
}

export function notFound(t: { group: string; plural: string }, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resourceId(t)} "${name}" not found`, {
    details: { name, group: t.group, kind: t.plural },
  });
}

export function invalid(t: ResourceType, name: string, causes: FieldCause[]): ApiError {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const text = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind(t)} "${name}" is invalid: ${text}`, {
    causes,
    details: { name, group: t.group, kind: t.kind },
  });
}

/** 504 as kube-apiserver answers a resourceVersion it has not reached (e.g. one from another server). */
export function tooLargeResourceVersion(rv: number, current: number): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', field: '', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

export function conflict(t: ResourceType, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resourceId(t)} "${name}": ${why}`,
    {
      details: { name, group: t.group, kind: t.plural },
    },
  );
}

const MODIFIED_MSG =
  'the object has been modified; please apply your changes to the latest version and try again';

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads `.spec.replicas`-style paths. */
function isInt32(v: Json): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31;
}

/** JSON's name of a value's type, as Go's decoder names it in an error. */
function jsonTypeName(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

export function getPath(obj: unknown, path: string): Json | undefined {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur as Json | undefined;
}

function setPath(obj: JsonObject, path: string, value: Json): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i] as string;
    const next = cur[p];
    if (isObject(next)) {
      const copy = { ...next };
      cur[p] = copy;
      cur = copy;
    } else {
      const fresh: JsonObject = {};
      cur[p] = fresh;
      cur = fresh;
    }
  }
  cur[parts[parts.length - 1] as string] = value;
}

/** A label selector object (`matchLabels`, `matchExpressions`) as the string form. */
export function labelSelectorString(sel: Json | undefined): string {
  if (typeof sel === 'string') return sel;
  if (!isObject(sel)) return '';
  const parts: string[] = [];
  if (isObject(sel.matchLabels))
    for (const [k, v] of Object.entries(sel.matchLabels)) parts.push(`${k}=${String(v)}`);
  if (Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions) {
      if (!isObject(e)) continue;
      const vals = Array.isArray(e.values) ? e.values.map(String).join(',') : '';
      const op = String(e.operator);
      if (op === 'In') parts.push(`${String(e.key)} in (${vals})`);
      else if (op === 'NotIn') parts.push(`${String(e.key)} notin (${vals})`);
      else if (op === 'Exists') parts.push(String(e.key));
      else if (op === 'DoesNotExist') parts.push(`!${String(e.key)}`);
    }
  }
  return parts.join(',');
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start })).toString('base64');
}

function decodeContinue(s: string): ContinueToken {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64').toString('utf8')) as { rv?: unknown; start?: unknown };
    if (typeof v.rv === 'number' && typeof v.start === 'string') return { rv: v.rv, start: v.start };
  } catch {
    // fall through
  }
  throw new ApiError(400, 'BadRequest', 'continue key is not valid: incorrect encoded start resourceVersion');
}

function recKey(r: Rec): string {
  return `${r.obj.metadata.namespace ?? ''}/${r.obj.metadata.name}`;
}

/**
 * For a continue key `namespace/name` (recKey): a test "this object is at or before the key" in the order of
 * the store's lists (namespace, then name). Comparing the `namespace/name` strings would not do: "a-b/x" <
 * "a/x", but namespace "a" lists before "a-b", and a cluster-wide page ending in "a" would skip "a-b".
 */
function startKeyTest(start: string): (r: Rec) => boolean {
  const slash = start.indexOf('/');
  if (slash < 0) return (r) => recKey(r) <= start; // not a key this server made
  const ns = start.slice(0, slash);
  const name = start.slice(slash + 1);
  return (r) => compareKeys(r.obj.metadata.namespace ?? '', r.obj.metadata.name ?? '', ns, name) <= 0;
}

function parseRv(s: string, what = 'resourceVersion'): number {
  if (!/^\d+$/.test(s)) throw new ApiError(400, 'BadRequest', `Invalid value for ${what}: "${s}"`);
  return Number(s);
}

export class Api {
  readonly store: Store;
  readonly registry: Registry;
  now: () => number = () => Date.now();
  /**
   * True when a namespace controller runs (it deletes a terminating namespace's content, then removes the
   * `kubernetes` finalizer). Without one, deleting a namespace removes its content at once.
   */
  namespaceController = false;

  constructor(store: Store, registry: Registry) {
    this.store = store;
    this.registry = registry;
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
    return this.registry.isCrdType(t) || GENERATION_IDS.has(resourceId(t));
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

  private storageType(t: ResourceType): ResourceType {
    if (t.storage !== false) return t;
    return this.registry.byResourceId(resourceId(t)) ?? t;
  }

  private checkNamespace(t: ResourceType, ns: string | undefined): void {
    if (!t.namespaced) return;
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
    if (rec.obj.metadata.deletionTimestamp) {
      throw new ApiError(
        403,
        'Forbidden',
        `${resourceId(t)} is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        { details: { name: ns, group: t.group, kind: t.plural } },
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
    return this.parseFilter(t, labelSelector, fieldSelector).filter;
  }

  private parseFilter(
    t: ResourceType,
    labelSelector: string | undefined,
    fieldSelector: string | undefined,
  ): { filter: ObjectFilter | undefined; labels: LabelSelector | undefined } {
    // Field selectors name the fields of the API asked (events.k8s.io: regarding.name), not of the storage.
    const id = apiResourceId(t);
    let ls: LabelSelector | undefined;
    let fs: FieldSelector | undefined;
    if (labelSelector && labelSelector.trim()) ls = parseLabelSelector(labelSelector);
    if (fieldSelector && fieldSelector.trim()) {
      fs = parseFieldSelector(fieldSelector);
      checkFieldSelectorSupported(id, fs);
    }
    if (!ls && !fs) return { filter: undefined, labels: undefined };
    const convert = needsConversion(t);
    const filter: ObjectFilter = (obj) =>
      (!ls || matchesLabels(ls, obj.metadata.labels)) &&
      (!fs || matchesFields(fs, selectableFields(id, convert ? this.present(t, obj) : obj)));
    return { filter, labels: ls };
  }

  list(t: ResourceType, ns: string | undefined, q: ListQuery): ListResult {
    const id = resourceId(t);
    const namespace = t.namespaced ? ns : undefined;
    const { filter, labels } = this.parseFilter(t, q.labelSelector, q.fieldSelector);
    const equalities = labels ? labelSelectorEqualities(labels) : [];
    // The objects to page through (the filter is applied below). With equality label requirements, a read of
    // the current state takes them from the store's label index: a subsequence of the full sorted list holding
    // every object the selector can match, so items, order, limit and continue keys come out the same. Reads
    // at an older resourceVersion (a continue or an Exact read after later changes) use the full list.
    const read = (at: number | undefined): readonly Rec[] => {
      if (equalities.length > 0 && (at === undefined || at >= this.store.lastChange(id))) {
        return this.store.listByLabel(id, namespace, equalities);
      }
      return at === undefined ? this.store.list(id, namespace) : this.store.listAt(id, namespace, at);
    };
    const current = this.store.resourceVersion;
    let listRv = current;
    let recs: readonly Rec[];
    let startAfter: string | undefined;
    if (q.continue) {
      const tok = decodeContinue(q.continue);
      try {
        recs = read(tok.rv);
      } catch (e) {
        if (e instanceof ApiError && e.code === 410) {
          throw new ApiError(
            410,
            'Expired',
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
          );
        }
        throw e;
      }
      listRv = tok.rv;
      startAfter = tok.start;
    } else {
      const match = q.resourceVersionMatch;
      if (match && !q.resourceVersion) {
        throw new ApiError(
          422,
          'Invalid',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
          {
            causes: [{ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden' }],
          },
        );
      }
      if (match && match !== 'NotOlderThan' && match !== 'Exact') {
        throw new ApiError(400, 'BadRequest', `unsupported resourceVersionMatch "${match}"`);
      }
      if (q.resourceVersion && q.resourceVersion !== '0') {
        const rv = parseRv(q.resourceVersion);
        if (rv > current) {
          throw tooLargeResourceVersion(rv, current);
        }
        if (match === 'Exact') {
          recs = read(rv);
          listRv = rv;
        } else {
          recs = read(undefined);
        }
      } else if (q.resourceVersion === '0' && match === 'Exact') {
        throw new ApiError(
          422,
          'Invalid',
          'resourceVersionMatch "Exact" is forbidden for resourceVersion "0"',
        );
      } else {
        recs = read(undefined);
      }
    }
    let i = 0;
    if (startAfter !== undefined) {
      // binary search for the first object after the continue key, in the list's order (namespace, then name)
      const notAfter = startKeyTest(startAfter);
      let lo = 0;
      let hi = recs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (notAfter(recs[mid] as Rec)) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    const limit = q.limit && q.limit > 0 ? q.limit : Infinity;
    const items: Rec[] = [];
    for (; i < recs.length && items.length < limit; i++) {
      const r = recs[i] as Rec;
      if (!filter || filter(r.obj)) items.push(r);
    }
    const out: ListResult = { resourceVersion: listRv, items };
    if (items.length >= limit && i < recs.length) {
      let more = !filter;
      if (filter) for (let j = i; j < recs.length && !more; j++) more = filter((recs[j] as Rec).obj);
      if (more) {
        out.continue = encodeContinue({ rv: listRv, start: recKey(items[items.length - 1] as Rec) });
        if (!filter) out.remainingItemCount = recs.length - i;
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- writes

  /** Metadata pruning, then for a schema: pruning, defaulting and validation (`old`: the object an update replaces). */
  private schemaProcess(
    t: ResourceType,
    obj: KubeObject,
    opts: WriteOptions,
    name: string,
    old?: KubeObject,
  ): KubeObject {
    const unknown: string[] = [];
    for (const k of Object.keys(obj.metadata)) if (!OBJECT_META_FIELDS.has(k)) unknown.push(`metadata.${k}`);
    let out = obj;
    if (unknown.length) {
      const meta: Record<string, unknown> = { ...obj.metadata };
      for (const u of unknown) delete meta[u.slice('metadata.'.length)];
      out = { ...obj, metadata: meta as ObjectMeta };
    }
    if (t.schema) {
      const pruned = pruneUnknownFields(out as unknown as Json, t.schema);
      unknown.push(...pruned.unknownFields.filter((f) => !f.startsWith('metadata.')));
      const v = pruned.value as unknown as KubeObject;
      const defaulted = applyDefaults(
        { ...v, apiVersion: out.apiVersion, kind: out.kind, metadata: out.metadata } as unknown as Json,
        t.schema,
      ) as unknown as KubeObject;
      out = { ...defaulted, apiVersion: out.apiVersion, kind: out.kind, metadata: out.metadata };
      const causes = validateAgainstSchema(out as unknown as Json, t.schema, {
        oldValue: old as unknown as Json | undefined,
        warnings: opts.warnings,
      });
      if (t.subresources.scale) causes.push(...scaleCauses(out, t.subresources.scale));
      if (causes.length) throw invalid(t, name, causes);
    } else if (opts.fieldValidation !== 'Ignore' && !this.registry.isCrdType(t)) {
      // Built-in kinds: unknown fields are reported (400 in Strict, a warning in Warn) but kept, so that a
      // field this simulator doesn't know can never be lost.
      unknown.push(...unknownBuiltinFields(t.group, t.kind, out));
    }
    const problems = unknown.map((f) => `unknown field "${f}"`);
    for (const f of opts.duplicateFields ?? []) problems.push(`duplicate field "${f}"`);
    if (problems.length) {
      const mode = opts.fieldValidation ?? 'Warn';
      if (mode === 'Strict') {
        const list = problems.join(', ');
        if (opts.patchShown) throw invalidPatch(opts.patchShown(), `strict decoding error: ${list}`);
        throw new ApiError(
          400,
          'BadRequest',
          `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: strict decoding error: ${list}`,
        );
      }
      if (mode === 'Warn') opts.warnings?.push(...problems);
    }
    return out;
  }

  /** A built-in's body its Go type cannot decode is refused first, as the API server's decoder does. */
  private decodes(t: ResourceType, body: unknown): void {
    if (!this.registry.isCrdType(t)) refuseUndecodable(t, body);
  }

  private checkBody(t: ResourceType, body: unknown): KubeObject {
    if (!isObject(body))
      throw new ApiError(400, 'BadRequest', 'the body of the request is not a JSON object');
    const av = body.apiVersion;
    const kind = body.kind;
    if (kind !== undefined && kind !== t.kind) {
      throw new ApiError(
        400,
        'BadRequest',
        `the kind in the body (${String(kind)}) does not match the expected kind (${t.kind})`,
      );
    }
    if (av !== undefined && av !== apiVersionOf(t)) {
      throw new ApiError(
        400,
        'BadRequest',
        `the API version in the data (${String(av)}) does not match the expected API version (${apiVersionOf(t)})`,
      );
    }
    const metadata = body.metadata;
    if (metadata !== undefined && !isObject(metadata))
      throw new ApiError(400, 'BadRequest', 'metadata must be an object');
    return {
      ...body,
      apiVersion: apiVersionOf(t),
      kind: t.kind,
      metadata: { ...(metadata ?? {}) },
    } as KubeObject;
  }

  create(t: ResourceType, ns: string | undefined, body: unknown, opts: WriteOptions = {}): KubeObject {
    this.decodes(t, body);
    let obj = this.checkBody(t, body);
    const id = resourceId(t);
    const m = obj.metadata;
    if (t.namespaced) {
      if (m.namespace && ns && m.namespace !== ns) {
        throw new ApiError(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      ns = ns ?? m.namespace;
      this.checkNamespace(t, ns);
    } else {
      ns = undefined;
    }
    let name = m.name;
    if (!name && !m.generateName) {
      throw invalid(t, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    }
    const rule = nameRuleFor(id);
    if (!name) {
      const base = String(m.generateName);
      const prefixCauses = validateName(`${base}x`, rule, 'metadata.generateName');
      if (prefixCauses.length) throw invalid(t, base, prefixCauses);
      for (let attempt = 0; attempt < 8; attempt++) {
        name = base.slice(0, 58) + randomSuffix();
        if (!this.store.get(id, ns, name)) break;
      }
    }
    name = String(name);
    const uid = randomUUID();
    // Defaults first, as decoding applies them; a Job's generated selector needs its name and uid.
    obj = defaultBuiltin(id, { ...obj, metadata: { ...obj.metadata, name, uid } });
    if (id === 'jobs.batch') obj = generateJobSelector(obj, uid);
    const causes = validateName(name, rule);
    causes.push(...validateMetadata(obj));
    causes.push(...validateBuiltinCreate(id, obj));
    if (causes.length) throw invalid(t, name, causes);
    if (this.store.get(id, ns, name)) {
      throw new ApiError(409, 'AlreadyExists', `${id} "${name}" already exists`, {
        details: { name, group: t.group, kind: t.plural },
      });
    }
    const now = this.now();
    const meta: ObjectMeta = {
      name,
      ...(m.generateName ? { generateName: m.generateName } : {}),
      ...(ns ? { namespace: ns } : {}),
      uid,
      resourceVersion: '',
      ...(this.tracksGeneration(t) ? { generation: 1 } : {}),
      creationTimestamp: timestamp(now),
      ...(obj.metadata.labels ? { labels: obj.metadata.labels } : {}),
      ...(m.annotations ? { annotations: m.annotations } : {}),
      ...(m.ownerReferences ? { ownerReferences: m.ownerReferences } : {}),
      ...(m.finalizers?.length ? { finalizers: m.finalizers } : {}),
    };
    let out: KubeObject = { ...obj, metadata: meta };
    out = this.schemaProcess(t, out, opts, name);
    out = this.prepareCreate(t, out, opts);
    out = prepareResourceQuota(t, out, name);
    const stored = this.toStorage(t, out);
    stored.metadata = this.withOwnership(t, undefined, stored, m.managedFields, opts, 'main').metadata;
    opts.admit?.(t, stored, undefined);
    checkQuota(this.store, t, stored, undefined, this.now());
    if (opts.dryRun) return this.present(t, stored);
    const saved = this.store.put(id, stored);
    this.afterWrite(t, saved);
    return this.present(t, saved);
  }

  private toStorage(t: ResourceType, obj: KubeObject): KubeObject {
    const st = this.storageType(t);
    if (st === t) return obj;
    return needsConversion(t)
      ? toStorageShape(t, obj, apiVersionOf(st))
      : { ...obj, apiVersion: apiVersionOf(st) };
  }

  /** Per-type defaults and status handling on create. */
  private prepareCreate(t: ResourceType, obj: KubeObject, _opts: WriteOptions): KubeObject {
    const id = resourceId(t);
    if (id === 'pods') return preparePod(obj);
    if (id === 'secrets' && !obj.type) return { ...obj, type: 'Opaque' };
    if (id === 'services') return this.prepareService(obj);
    if (id === 'namespaces') {
      const name = obj.metadata.name as string;
      return {
        ...obj,
        metadata: {
          ...obj.metadata,
          labels: { ...obj.metadata.labels, 'kubernetes.io/metadata.name': name },
        },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      };
    }
    if (id === 'customresourcedefinitions.apiextensions.k8s.io') return this.prepareCrd(obj);
    if (t.subresources.status && id !== 'nodes') {
      const { status: _s, ...rest } = obj;
      const status = initialStatus(id);
      return (status ? { ...rest, status } : rest) as KubeObject;
    }
    return obj;
  }

  private nextClusterIp = 1;
  private nextNodePort = 0;

  /** Defaults and a cluster IP from 10.96.0.0/16, as the API server's service allocator would. */
  private prepareService(obj: KubeObject): KubeObject {
    const spec: JsonObject = isObject(obj.spec) ? { ...obj.spec } : {};
    spec.type ??= 'ClusterIP';
    spec.sessionAffinity ??= 'None';
    const nodePorts = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
    if (Array.isArray(spec.ports)) {
      spec.ports = spec.ports.map((p) =>
        isObject(p)
          ? {
              ...p,
              protocol: p.protocol ?? 'TCP',
              targetPort: p.targetPort ?? p.port ?? null,
              ...(nodePorts && p.nodePort === undefined
                ? { nodePort: 30000 + (this.nextNodePort++ % 2768) }
                : {}),
            }
          : p,
      );
    }
    if (spec.type !== 'ExternalName' && spec.clusterIP === undefined) {
      const n = this.nextClusterIp++;
      const ip = `10.96.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
    }
    const { status: _s, ...rest } = obj;
    return { ...rest, spec, status: { loadBalancer: {} } } as KubeObject;
  }

  private prepareCrd(input: KubeObject): KubeObject {
    const t = this.registry.byResourceId('customresourcedefinitions.apiextensions.k8s.io') as ResourceType;
    const obj = applyCrdDefaults(input);
    const causes = validateCrd(obj);
    if (causes.length) throw invalid(t, obj.metadata.name ?? '', causes);
    const types = crdResourceTypes(obj);
    for (const ct of types) {
      const existing = this.registry.lookup(ct.group, ct.version, ct.plural);
      if (existing && !this.registry.isCrdType(existing)) {
        throw invalid(t, obj.metadata.name ?? '', [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.group',
            message: `Invalid value: "${ct.group}": is a built-in group`,
          },
        ]);
      }
    }
    const spec = isObject(obj.spec) ? obj.spec : {};
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
    const storage = versions.find((v) => v.storage === true)?.name;
    const now = timestamp(this.now());
    const oldStatus = isObject(obj.status) ? obj.status : {};
    const stored = new Set<string>(
      Array.isArray(oldStatus.storedVersions) ? oldStatus.storedVersions.map(String) : [],
    );
    if (typeof storage === 'string') stored.add(storage);
    const oldConditions = Array.isArray(oldStatus.conditions) ? oldStatus.conditions.filter(isObject) : [];
    const cond = (type: string, reason: string, message: string): JsonObject => {
      const prev = oldConditions.find((c) => c.type === type && c.status === 'True');
      const since = typeof prev?.lastTransitionTime === 'string' ? prev.lastTransitionTime : now;
      return { type, status: 'True', lastTransitionTime: since, reason, message };
    };
    return {
      ...obj,
      status: {
        conditions: [
          cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
          cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
        ],
        acceptedNames: isObject(spec.names) ? spec.names : {},
        storedVersions: [...stored],
      },
    };
  }

  /** Side effects once a write is committed. */
  private afterWrite(t: ResourceType, obj: KubeObject): void {
    if (resourceId(t) === 'customresourcedefinitions.apiextensions.k8s.io') {
      this.registry.setCrd(obj.metadata.name as string, crdResourceTypes(obj));
    }
  }

  /** PUT of the main resource. */
  update(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): KubeObject {
    this.decodes(t, body);
    const obj = this.checkBody(t, body);
    this.checkNameMatches(obj, name, ns, t);
    const rec = this.getRec(t, ns, name);
    return this.writeUpdate(t, rec.obj, obj, opts, 'main');
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
    this.decodes(t, body);
    const obj = this.checkBody(t, body);
    this.checkNameMatches(obj, name, ns, t);
    const rec = this.getRec(t, ns, name);
    return this.writeUpdate(t, rec.obj, obj, opts, 'status');
  }

  private checkNameMatches(obj: KubeObject, name: string, ns: string | undefined, t: ResourceType): void {
    if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
      throw new ApiError(
        400,
        'BadRequest',
        `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    if (t.namespaced && obj.metadata.namespace && ns && obj.metadata.namespace !== ns) {
      throw new ApiError(
        400,
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
  }

  /** The common update path: `incoming` is the full new object (from PUT, or a patch applied to the current). */
  writeUpdate(
    t: ResourceType,
    current: KubeObject,
    incoming: KubeObject,
    opts: WriteOptions,
    part: 'main' | 'status',
  ): KubeObject {
    const id = resourceId(t);
    const name = current.metadata.name as string;
    const cm = current.metadata;
    const im = incoming.metadata;
    if (im.resourceVersion && im.resourceVersion !== cm.resourceVersion)
      throw conflict(t, name, MODIFIED_MSG);
    if (im.uid && im.uid !== cm.uid) {
      throw conflict(
        t,
        name,
        `Precondition failed: UID in precondition: ${im.uid}, UID in object meta: ${cm.uid}`,
      );
    }
    let next: KubeObject;
    if (part === 'status') {
      const { status: _old, ...rest } = current;
      next = { ...rest, metadata: current.metadata } as KubeObject;
      if (incoming.status !== undefined) next.status = incoming.status;
      next = { ...next, apiVersion: incoming.apiVersion };
    } else {
      const meta: ObjectMeta = {
        name: cm.name,
        ...(cm.generateName ? { generateName: cm.generateName } : {}),
        ...(cm.namespace ? { namespace: cm.namespace } : {}),
        uid: cm.uid,
        resourceVersion: cm.resourceVersion,
        ...(cm.generation !== undefined ? { generation: cm.generation } : {}),
        creationTimestamp: cm.creationTimestamp,
        ...(cm.deletionTimestamp ? { deletionTimestamp: cm.deletionTimestamp } : {}),
        ...(cm.deletionGracePeriodSeconds !== undefined
          ? { deletionGracePeriodSeconds: cm.deletionGracePeriodSeconds }
          : {}),
        ...(im.labels && Object.keys(im.labels).length ? { labels: im.labels } : {}),
        ...(im.annotations && Object.keys(im.annotations).length ? { annotations: im.annotations } : {}),
        ...(im.ownerReferences?.length ? { ownerReferences: im.ownerReferences } : {}),
        ...(im.finalizers?.length ? { finalizers: im.finalizers } : {}),
      };
      for (const k of Object.keys(im))
        if (!OBJECT_META_FIELDS.has(k))
          (meta as Record<string, unknown>)[k] = (im as Record<string, unknown>)[k];
      next = defaultBuiltin(id, { ...incoming, metadata: meta }, current);
      if (t.subresources.status) {
        if (current.status !== undefined) next.status = current.status;
        else delete next.status;
      }
      const causes = validateMetadata(next);
      causes.push(...validateBuiltinUpdate(id, current, next, opts.binding));
      if (causes.length) throw invalid(t, name, causes);
      if (cm.deletionTimestamp) {
        const had = new Set(cm.finalizers ?? []);
        const added = (next.metadata.finalizers ?? []).filter((f) => !had.has(f));
        if (added.length) {
          throw invalid(t, name, [
            {
              reason: 'FieldValueForbidden',
              field: 'metadata.finalizers',
              message: 'Forbidden: no new finalizers can be added if the object is being deleted',
            },
          ]);
        }
      }
    }
    next = this.schemaProcess(t, next, opts, name, t.schema ? this.present(t, current) : undefined);
    if (part === 'main') next = prepareResourceQuota(t, next, name);
    if (id === 'services' && part === 'main' && isObject(next.spec) && isObject(current.spec)) {
      // The allocated cluster IPs are immutable: a PUT without them keeps them.
      const cs = current.spec;
      next = {
        ...next,
        spec: {
          ...next.spec,
          ...(next.spec.clusterIP === undefined && cs.clusterIP !== undefined
            ? { clusterIP: cs.clusterIP }
            : {}),
          ...(next.spec.clusterIPs === undefined && cs.clusterIPs !== undefined
            ? { clusterIPs: cs.clusterIPs }
            : {}),
        },
      };
    }
    if (id === 'customresourcedefinitions.apiextensions.k8s.io' && part === 'main') {
      next = this.prepareCrd({ ...next, status: current.status ?? {} });
    }
    next = this.toStorage(t, next);
    if (
      this.tracksGeneration(t) &&
      part === 'main' &&
      specOf(next, !!t.subresources.status) !== specOf(current, !!t.subresources.status)
    ) {
      next.metadata = { ...next.metadata, generation: (cm.generation ?? 1) + 1 };
    }
    const owned = this.withOwnership(t, current, next, im.managedFields, opts, part);
    next.metadata = owned.metadata;
    // A no-op update changes nothing: no new resourceVersion, no event.
    if (owned.same) return this.present(t, current);
    if (!owned.compared && JSON.stringify(next) === JSON.stringify(current)) return this.present(t, current);
    if (part === 'main') {
      opts.admit?.(t, next, current);
      checkQuota(this.store, t, next, current, this.now());
    }
    if (opts.dryRun) return this.present(t, next);
    if (this.readyToRemove(id, next)) {
      const gone = this.store.remove(id, cm.namespace, name) as KubeObject;
      this.afterRemove(t, gone);
      return this.present(t, gone);
    }
    const saved = this.store.put(id, next);
    this.afterWrite(t, saved);
    return this.present(t, saved);
  }

  /**
   * `next`'s metadata with managedFields as after the write: the apply's own, or this write's changes
   * recorded; `compared`: the write was compared with the live object, `same`: and nothing changed (a
   * no-op), so the objects need not be serialized to tell.
   */
  private withOwnership(
    t: ResourceType,
    live: KubeObject | undefined,
    next: KubeObject,
    requested: Json[] | undefined,
    opts: WriteOptions,
    part: 'main' | 'status',
  ): { metadata: ObjectMeta; same: boolean; compared: boolean } {
    let mf = opts.managedFields;
    let same = false;
    let compared = false;
    if (!mf) {
      try {
        ({ managedFields: mf, same } = recordUpdate({
          live,
          next,
          requested,
          manager: opts.fieldManager ?? 'kube-sim',
          apiVersion: apiVersionOf(t),
          subresource: part === 'status' ? 'status' : (opts.subresource ?? ''),
          part: part === 'status' ? 'status' : t.subresources.status ? 'main-without-status' : 'main',
          view: typeViewOf(t, this.registry.isCrdType(t)),
          time: timestamp(this.now()),
        }));
        compared = true;
      } catch {
        // As the API server: a write never fails over its managedFields; the live ones are kept.
        mf = live?.metadata.managedFields;
      }
    }
    const { managedFields: _old, ...meta } = next.metadata;
    return { metadata: mf && mf.length ? { ...meta, managedFields: mf } : meta, same, compared };
  }

  private readyToRemove(id: string, obj: KubeObject): boolean {
    const m = obj.metadata;
    if (!m.deletionTimestamp || (m.finalizers?.length ?? 0) > 0) return false;
    if (id === 'namespaces') return specFinalizers(obj).length === 0;
    if (id !== 'pods') return true;
    return m.deletionGracePeriodSeconds === 0 || Date.parse(m.deletionTimestamp) <= this.now();
  }

  patch(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    contentType: string,
    patchBody: unknown,
    subresource: '' | 'status' | 'scale',
    opts: WriteOptions = {},
  ): KubeObject | JsonObject {
    const rec = this.getRec(t, ns, name);
    const isCrd = this.registry.isCrdType(t);
    const base: Json =
      subresource === 'scale'
        ? (this.scaleOf(t, rec.obj) as unknown as Json)
        : (this.present(t, rec.obj) as unknown as Json);
    let patched: Json;
    const ct = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (ct === 'application/merge-patch+json') patched = applyMergePatch(base, patchBody as Json);
    else if (ct === 'application/json-patch+json') patched = applyJsonPatch(base, patchBody as Json);
    else if (ct === 'application/strategic-merge-patch+json' && !isCrd && subresource !== 'scale') {
      patched = applyStrategicMergePatch(base, patchBody as Json, t.kind);
    } else if (ct === 'application/strategic-merge-patch+json' && subresource === 'scale') {
      patched = applyMergePatch(base, patchBody as Json);
    } else {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json${isCrd ? '' : ', application/strategic-merge-patch+json'}`,
      );
    }
    const strategic =
      ct === 'application/strategic-merge-patch+json' && subresource !== 'scale'
        ? { patch: patchBody as Json }
        : undefined;
    opts = { ...opts, patchShown: () => patchShown(patched, strategic) };
    if (subresource === 'scale') return this.writeScale(t, rec.obj, patched, opts);
    if (!isCrd) refuseUndecodablePatch(t, patched, strategic);
    const obj = this.checkBody(t, patched);
    if (obj.metadata.name !== name) {
      throw new ApiError(
        400,
        'BadRequest',
        `the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${name})`,
      );
    }
    if (subresource === 'status' && !t.subresources.status) throw notFound(t, name);
    return this.writeUpdate(t, rec.obj, obj, opts, subresource === 'status' ? 'status' : 'main');
  }

  // ---------------------------------------------------------------- pods/binding, pods/eviction

  /** pods/binding: assigns a node (409 if the pod already has one). */
  bind(ns: string, name: string, body: unknown, opts: WriteOptions = {}): KubeObject {
    const t = this.registry.lookup('', 'v1', 'pods') as ResourceType;
    const b = isObject(body) ? body : {};
    const target = isObject(b.target) ? b.target : {};
    const node = typeof target.name === 'string' ? target.name : '';
    if (!node) {
      throw invalid({ ...t, kind: 'Binding' }, name, [
        { reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' },
      ]);
    }
    const cur = this.getRec(t, ns, name).obj;
    const spec = isObject(cur.spec) ? cur.spec : {};
    if (spec.nodeName)
      throw conflict(t, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`);
    if (cur.metadata.deletionTimestamp)
      throw conflict(t, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    return this.writeUpdate(
      t,
      cur,
      { ...cur, spec: { ...spec, nodeName: node } } as KubeObject,
      { ...opts, binding: true },
      'main',
    );
  }

  /** pods/eviction: a delete with the Eviction's deleteOptions (no disruption budgets are checked). */
  evict(ns: string, name: string, body: unknown, opts: WriteOptions = {}): void {
    const t = this.registry.lookup('', 'v1', 'pods') as ResourceType;
    const b = isObject(body) ? body : {};
    const d = isObject(b.deleteOptions) ? b.deleteOptions : {};
    const options: DeleteOptions = {};
    if (typeof d.gracePeriodSeconds === 'number') options.gracePeriodSeconds = d.gracePeriodSeconds;
    if (isObject(d.preconditions)) {
      options.preconditions = {
        ...(typeof d.preconditions.uid === 'string' ? { uid: d.preconditions.uid } : {}),
        ...(typeof d.preconditions.resourceVersion === 'string'
          ? { resourceVersion: d.preconditions.resourceVersion }
          : {}),
      };
    }
    this.delete(t, ns, name, options, opts);
  }

  // ---------------------------------------------------------------- scale

  scaleOf(t: ResourceType, obj: KubeObject): JsonObject {
    const sc = t.subresources.scale;
    if (!sc) throw notFound(t, obj.metadata.name ?? '');
    const m = obj.metadata;
    const specReplicas = getPath(obj, sc.specReplicasPath);
    const statusReplicas = getPath(obj, sc.statusReplicasPath);
    const selector = sc.labelSelectorPath ? labelSelectorString(getPath(obj, sc.labelSelectorPath)) : '';
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: m.name as string,
        ...(m.namespace ? { namespace: m.namespace } : {}),
        uid: m.uid as string,
        resourceVersion: m.resourceVersion as string,
        creationTimestamp: m.creationTimestamp as string,
      },
      spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
      status: {
        replicas: typeof statusReplicas === 'number' ? statusReplicas : 0,
        ...(selector ? { selector } : {}),
      },
    };
  }

  getScale(t: ResourceType, ns: string | undefined, name: string): JsonObject {
    if (!t.subresources.scale) throw notFound(t, name);
    return this.scaleOf(t, this.getRec(t, ns, name).obj);
  }

  updateScale(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): JsonObject {
    if (!t.subresources.scale) throw notFound(t, name);
    return this.writeScale(t, this.getRec(t, ns, name).obj, body as Json, opts);
  }

  private writeScale(t: ResourceType, current: KubeObject, scale: Json, opts: WriteOptions): JsonObject {
    const sc = t.subresources.scale;
    const name = current.metadata.name as string;
    if (!sc) throw notFound(t, name);
    if (!isObject(scale))
      throw new ApiError(400, 'BadRequest', 'the body of the request is not a JSON object');
    const meta = isObject(scale.metadata) ? scale.metadata : {};
    if (
      typeof meta.resourceVersion === 'string' &&
      meta.resourceVersion &&
      meta.resourceVersion !== current.metadata.resourceVersion
    ) {
      throw conflict(t, name, MODIFIED_MSG);
    }
    const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
    if (replicas !== undefined && replicas !== null && !isInt32(replicas)) {
      // A Scale's spec.replicas is an int32: anything else does not decode.
      const what = typeof replicas === 'number' ? `number ${replicas}` : jsonTypeName(replicas);
      const error = `json: cannot unmarshal ${what} into Go struct field ScaleSpec.spec.replicas of type int32`;
      if (opts.patchShown) throw invalidPatch(opts.patchShown(), error);
      throw new ApiError(400, 'BadRequest', `Scale in version "v1" cannot be handled as a Scale: ${error}`);
    }
    // A built-in kind validates the Scale; a custom resource is validated as itself (its schema's causes and
    // its scale subresource's, see scaleCauses) once the replicas are written into it.
    if (typeof replicas !== 'number' || (replicas < 0 && !this.registry.isCrdType(t))) {
      const scaleType = { ...t, kind: 'Scale', group: 'autoscaling' };
      throw invalid(scaleType, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.replicas',
          message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
        },
      ]);
    }
    const next = { ...this.present(t, current) } as unknown as JsonObject;
    setPath(next, sc.specReplicasPath, replicas);
    const updated = this.writeUpdate(
      t,
      current,
      next as unknown as KubeObject,
      { ...opts, subresource: 'scale' },
      'main',
    );
    return this.scaleOf(t, updated);
  }

  // ---------------------------------------------------------------- delete

  /** Returns the object as left: with deletionTimestamp when deletion is pending, or its final state. */
  delete(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    options: DeleteOptions & { orphanDependents?: boolean } = {},
    opts: WriteOptions = {},
  ): { object: KubeObject; removed: boolean } {
    const id = resourceId(t);
    const rec = this.getRec(t, ns, name);
    const cur = rec.obj;
    const cm = cur.metadata;
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== cm.uid) {
      throw conflict(
        t,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cm.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== cm.resourceVersion) {
      throw conflict(
        t,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cm.resourceVersion}`,
      );
    }
    if (id === 'namespaces' && PROTECTED_NAMESPACES.has(name)) {
      throw new ApiError(
        403,
        'Forbidden',
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        {
          details: { name, kind: 'namespaces' },
        },
      );
    }
    if (
      options.gracePeriodSeconds !== undefined &&
      (!Number.isInteger(options.gracePeriodSeconds) || options.gracePeriodSeconds < 0)
    ) {
      if (options.gracePeriodSeconds !== -1)
        throw new ApiError(400, 'BadRequest', 'gracePeriodSeconds must be >= 0');
    }
    let policy = options.propagationPolicy;
    if (!policy && options.orphanDependents === true) policy = 'Orphan';
    const finalizers = [...(cm.finalizers ?? [])];
    if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
      finalizers.push('foregroundDeletion');
    let grace = 0;
    if (id === 'pods') {
      const spec = isObject(cur.spec) ? cur.spec : {};
      const status = isObject(cur.status) ? cur.status : {};
      const fromSpec =
        typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
      grace =
        options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds >= 0
          ? options.gracePeriodSeconds
          : fromSpec;
      if (!spec.nodeName || status.phase === 'Succeeded' || status.phase === 'Failed') grace = 0;
    }
    const now = this.now();
    if (cm.deletionTimestamp) {
      // Already being deleted: a shorter grace period may hasten a pod; nothing else changes.
      if (id === 'pods' && grace < (cm.deletionGracePeriodSeconds ?? 0)) {
        const next = {
          ...cur,
          metadata: {
            ...cm,
            deletionTimestamp: timestamp(now + grace * 1000),
            deletionGracePeriodSeconds: grace,
          },
        };
        if (opts.dryRun) return { object: this.present(t, next), removed: false };
        if (this.readyToRemove(id, next)) return this.removeNow(t, cur);
        return { object: this.present(t, this.store.put(id, next)), removed: false };
      }
      return { object: this.present(t, cur), removed: false };
    }
    if (id === 'namespaces' && this.namespaceController && specFinalizers(cur).length > 0) {
      const next: KubeObject = {
        ...cur,
        metadata: {
          ...cm,
          deletionTimestamp: timestamp(now),
          deletionGracePeriodSeconds: 0,
          ...(finalizers.length ? { finalizers } : {}),
        },
        status: { ...(isObject(cur.status) ? cur.status : {}), phase: 'Terminating' },
      };
      if (opts.dryRun) return { object: this.present(t, next), removed: false };
      return { object: this.present(t, this.store.put(id, next)), removed: false };
    }
    if (finalizers.length === 0 && grace === 0) {
      if (opts.dryRun) return { object: this.present(t, cur), removed: true };
      return this.removeNow(t, cur);
    }
    const next: KubeObject = {
      ...cur,
      metadata: {
        ...cm,
        deletionTimestamp: timestamp(now + grace * 1000),
        deletionGracePeriodSeconds: grace,
        ...(finalizers.length ? { finalizers } : {}),
      },
    };
    if (opts.dryRun) return { object: this.present(t, next), removed: false };
    return { object: this.present(t, this.store.put(id, next)), removed: false };
  }

  private removeNow(t: ResourceType, cur: KubeObject): { object: KubeObject; removed: boolean } {
    const id = resourceId(t);
    const name = cur.metadata.name as string;
    if (id === 'namespaces') {
      for (const other of this.registry.all()) {
        if (!other.namespaced || other.storage === false) continue;
        const oid = resourceId(other);
        for (const r of [...this.store.list(oid, name)])
          this.store.remove(oid, name, r.obj.metadata.name as string);
      }
    }
    const gone = this.store.remove(id, cur.metadata.namespace, name) as KubeObject;
    this.afterRemove(t, gone);
    return { object: this.present(t, gone), removed: true };
  }

  private afterRemove(t: ResourceType, gone: KubeObject): void {
    if (resourceId(t) !== 'customresourcedefinitions.apiextensions.k8s.io') return;
    const name = gone.metadata.name as string;
    const spec = isObject(gone.spec) ? gone.spec : {};
    const names = isObject(spec.names) ? spec.names : {};
    const crId = `${String(names.plural)}.${String(spec.group)}`;
    for (const r of [...this.store.list(crId)])
      this.store.remove(crId, r.obj.metadata.namespace, r.obj.metadata.name as string);
    this.registry.removeCrd(name);
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
    options: DeleteOptions & { orphanDependents?: boolean },
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

function specFinalizers(obj: KubeObject): string[] {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return Array.isArray(spec.finalizers) ? spec.finalizers.map(String) : [];
}

function specOf(obj: KubeObject, statusSubresource: boolean): string {
  const { metadata: _m, status, ...rest } = obj;
  return JSON.stringify(statusSubresource ? rest : { ...rest, status });
}
