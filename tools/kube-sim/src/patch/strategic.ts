// Strategic merge patch (application/strategic-merge-patch+json) for built-in kinds, following
// k8s.io/apimachinery/pkg/util/strategicpatch (mergeMap / mergeSlice / mergePatchIntoOriginal / normalizeElementOrder)
// with the options the API server uses (MergeParallelList, IgnoreUnmatchedNulls).
//
// SIMPLIFICATION: the real thing reads patch strategies and merge keys from the Go struct tags of each kind.
// We keep a small table keyed by field name (plus the parent field where a name means different things, e.g.
// `ports` of a container vs of a Service), which covers what kubectl apply/edit/label/annotate/scale/set send
// for the built-ins. Lists not in the table are replaced whole (atomic), maps always merge.
//
// Other deliberate differences:
// - `$deleteFromPrimitiveList/<f>` keeps the list's order (Kubernetes returns it sorted and de-duplicated).
// - Malformed patches answer 400 BadRequest where the API server answers 500 for some (unknown `$patch`
//   value, list item without its merge key, mixed element types); errors it maps to 400/422 keep those codes.
// - Values taken from the patch where the original has nothing are cleaned of nulls and directives recursively
//   (the result never carries `$patch`, `$retainKeys`, ... keys).
import { ApiError, type Json, type JsonObject } from '../apimachinery/types.ts';
import { cloneJson, deepEqual, hasOwn, isObject, jsonKind, setOwn } from '../apimachinery/json.ts';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

/** How a list field merges: by a key (lists of maps), as a set of scalars, or not at all (replace). */
export type ListStrategy =
  { type: 'mergeByKey'; key: string } | { type: 'mergePrimitives' } | { type: 'replace' };

const REPLACE: ListStrategy = { type: 'replace' };
const PRIMITIVES: ListStrategy = { type: 'mergePrimitives' };
const byKey = (key: string): ListStrategy => ({ type: 'mergeByKey', key });

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** Merge keys by field name, valid wherever the name appears in a built-in kind. */
const MERGE_KEYS_BY_FIELD: Record<string, ListStrategy> = {
  containers: byKey('name'),
  initContainers: byKey('name'),
  ephemeralContainers: byKey('name'),
  env: byKey('name'),
  volumes: byKey('name'),
  volumeMounts: byKey('mountPath'),
  volumeDevices: byKey('devicePath'),
  imagePullSecrets: byKey('name'),
  hostAliases: byKey('ip'),
  topologySpreadConstraints: byKey('topologyKey'),
  resourceClaims: byKey('name'),
  schedulingGates: byKey('name'),
};

/**
 * The strategy for the list at `path` (field names from the object root; list items add no segment) in an
 * object of `kind`.
 */
export function listStrategy(kind: string, path: readonly string[]): ListStrategy {
  const field = path[path.length - 1] ?? '';
  const parent = path[path.length - 2] ?? '';
  switch (field) {
    case 'finalizers':
      return parent === 'metadata' ? PRIMITIVES : REPLACE;
    case 'ownerReferences':
      return parent === 'metadata' ? byKey('uid') : REPLACE;
    case 'ports':
      if (CONTAINER_LISTS.has(parent)) return byKey('containerPort');
      if (kind === 'Service' && path.length === 2 && parent === 'spec') return byKey('port');
      return REPLACE;
    case 'conditions':
      return parent === 'status' ? byKey('type') : REPLACE;
    case 'podIPs':
    case 'hostIPs':
      return parent === 'status' ? byKey('ip') : REPLACE;
    case 'addresses':
      return kind === 'Node' && parent === 'status' ? byKey('type') : REPLACE;
    case 'podCIDRs':
      return kind === 'Node' && parent === 'spec' ? PRIMITIVES : REPLACE;
    default:
      return Object.hasOwn(MERGE_KEYS_BY_FIELD, field) ? MERGE_KEYS_BY_FIELD[field]! : REPLACE;
  }
}

class SmpError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}
const badRequest = (message: string): SmpError => new SmpError(400, message);

/** Strategic merge patch for built-in kinds (`Pod`, `Deployment`, ...), with merge keys and $patch directives. */
export function strategicMerge(original: Json, patch: Json, kind: string): Json {
  if (!isObject(patch)) {
    throw new ApiError(
      400,
      'BadRequest',
      `json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`,
    );
  }
  try {
    const base = isObject(original) ? cloneJson(original) : {};
    return new Merger(kind).mergeMap(base, patch, []);
  } catch (e) {
    if (e instanceof SmpError) {
      throw e.code === 422
        ? new ApiError(422, 'Invalid', e.message)
        : new ApiError(400, 'BadRequest', e.message);
    }
    throw e;
  }
}

function describe(v: Json | undefined): string {
  return JSON.stringify(v) ?? 'undefined';
}

class Merger {
  private readonly kind: string;
  constructor(kind: string) {
    this.kind = kind;
  }

  /** Merges `patch` (read only) into `original` (owned by us, mutated) and returns the result. */
  mergeMap(original: JsonObject, patch: JsonObject, path: string[]): JsonObject {
    if (hasOwn(patch, DIRECTIVE)) {
      const directive = patch[DIRECTIVE];
      if (directive === 'replace') {
        const rest: JsonObject = {};
        for (const k of Object.keys(patch)) if (k !== DIRECTIVE) setOwn(rest, k, patch[k]!);
        return this.mergeMap({}, rest, path);
      }
      if (directive === 'delete') return {};
      throw badRequest(`Unknown patch type: ${describe(directive)} in map: ${describe(patch)}`);
    }

    const done = new Set<string>([RETAIN_KEYS]);
    this.applyRetainKeys(original, patch);
    this.mergeOrderedLists(original, patch, path, done);

    for (const rawKey of Object.keys(patch)) {
      if (done.has(rawKey) || rawKey.startsWith(`${SET_ELEMENT_ORDER}/`)) continue;
      const patchV = patch[rawKey]!;
      let key = rawKey;
      let isDeleteList = false;
      if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        const slash = rawKey.indexOf('/');
        if (slash < 0 || rawKey.slice(0, slash) !== DELETE_FROM_PRIMITIVE_LIST) {
          throw badRequest('invalid patch format of primitive list');
        }
        key = rawKey.slice(slash + 1);
        isDeleteList = true;
      }
      const childPath = [...path, key];

      if (patchV === null) {
        delete original[key];
        continue;
      }
      const origV = hasOwn(original, key) ? original[key] : undefined;
      if (origV === undefined) {
        if (!isDeleteList) setOwn(original, key, this.materialize(patchV, childPath));
        continue;
      }
      if (isDeleteList) {
        if (!Array.isArray(patchV)) throw badRequest('invalid patch format of primitive list');
        if (Array.isArray(origV)) setOwn(original, key, deleteFromList(origV, patchV));
        continue;
      }
      if (jsonKind(origV) !== jsonKind(patchV)) {
        setOwn(original, key, this.materialize(patchV, childPath));
        continue;
      }
      if (isObject(origV) && isObject(patchV)) {
        setOwn(original, key, this.mergeMap(origV, patchV, childPath));
      } else if (Array.isArray(origV) && Array.isArray(patchV)) {
        setOwn(original, key, this.mergeListField(origV, patchV, childPath));
      } else {
        setOwn(original, key, patchV);
      }
    }
    return original;
  }

  /** A patch value placed where the original has nothing: nulls dropped, directives applied against empty. */
  private materialize(patchV: Json, path: string[]): Json {
    if (isObject(patchV)) return this.mergeMap({}, patchV, path);
    if (Array.isArray(patchV)) return this.mergeListField([], patchV, path);
    return patchV;
  }

  private mergeListField(original: Json[], patch: Json[], path: string[]): Json[] {
    const strategy = listStrategy(this.kind, path);
    if (strategy.type === 'replace') return patch.map((v) => cloneJson(v));
    return this.mergeSlice(original, patch, strategy, path);
  }

  // `$retainKeys: [...]`: drop original keys not listed; every non-null patch key must be listed.
  private applyRetainKeys(original: JsonObject, patch: JsonObject): void {
    if (!hasOwn(patch, RETAIN_KEYS)) return;
    const list = patch[RETAIN_KEYS];
    if (!Array.isArray(list)) throw badRequest('invalid patch format of retainKeys');
    const keep = new Set(list.filter((v): v is string => typeof v === 'string'));
    for (const k of Object.keys(patch)) {
      if (k === RETAIN_KEYS || patch[k] === null) continue;
      if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
      if (!keep.has(k)) throw badRequest('invalid patch format of retainKeys');
    }
    for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
  }

  // `$setElementOrder/<f>`: merge list <f> now and order it as the directive says (then the patch order, then
  // the live order). Marks <f> done so the main loop leaves it alone.
  private mergeOrderedLists(
    original: JsonObject,
    patch: JsonObject,
    path: string[],
    done: Set<string>,
  ): void {
    for (const dirKey of Object.keys(patch)) {
      if (!dirKey.startsWith(SET_ELEMENT_ORDER)) continue;
      done.add(dirKey);
      const slash = dirKey.indexOf('/');
      if (slash < 0 || dirKey.slice(0, slash) !== SET_ELEMENT_ORDER) {
        throw badRequest('invalid patch format of setElementOrder list');
      }
      const key = dirKey.slice(slash + 1);
      const order = patch[dirKey];
      if (!Array.isArray(order)) throw badRequest('invalid patch format of setElementOrder list');
      const origList = hasOwn(original, key) ? original[key] : undefined;
      const patchList = hasOwn(patch, key) ? patch[key] : undefined;
      if (origList !== undefined && !Array.isArray(origList)) {
        throw badRequest(`invalid value for ${key}: expected a list, got ${describe(origList)}`);
      }
      if (patchList !== undefined && !Array.isArray(patchList)) {
        throw badRequest('invalid patch format of setElementOrder list');
      }
      const childPath = [...path, key];
      const strategy = listStrategy(this.kind, childPath);
      const mergeKey = strategy.type === 'mergeByKey' ? strategy.key : undefined;
      validateAgainstOrder(patchList ?? [], order, mergeKey);

      let merged: Json[];
      if (origList !== undefined && patchList === undefined) merged = origList;
      else if (origList === undefined && patchList !== undefined)
        merged = this.mergeListField([], patchList, childPath);
      else if (origList !== undefined && patchList !== undefined)
        merged = this.mergeListField(origList, patchList, childPath);
      else continue;

      const [inOrder, serverOnly] = partition(merged, order, mergeKey);
      setOwn(original, key, normalizeElementOrder(inOrder, serverOnly, order, origList ?? [], mergeKey));
      done.add(key);
    }
  }

  private mergeSlice(original: Json[], patch: Json[], strategy: ListStrategy, path: string[]): Json[] {
    if (original.length === 0 && patch.length === 0) return original;
    const elementKind = sliceElementKind(original, patch);
    if (elementKind !== 'object') {
      // Lists of scalars: a set union, patch items first.
      const merged: Json[] = [];
      for (const v of [...original, ...patch]) if (!merged.some((m) => deepEqual(m, v))) merged.push(v);
      const [inPatch, serverOnly] = partition(merged, patch, undefined);
      return normalizeElementOrder(inPatch, serverOnly, patch, original, undefined);
    }
    if (strategy.type !== 'mergeByKey') {
      throw badRequest(`cannot merge lists without merge key for ${path.join('.')}`);
    }
    const mergeKey = strategy.key;

    // Items carrying `$patch`: delete drops the matching originals, replace makes the rest of the patch the list.
    let items = original;
    const plain: JsonObject[] = [];
    let replace = false;
    for (const v of patch) {
      const item = v as JsonObject;
      if (!hasOwn(item, DIRECTIVE)) {
        plain.push(item);
        continue;
      }
      switch (item[DIRECTIVE]) {
        case 'delete':
          if (!hasOwn(item, mergeKey)) throw badRequest('delete patch type with no merge key defined');
          items = items.filter(
            (o) => !(isObject(o) && hasOwn(o, mergeKey) && deepEqual(o[mergeKey], item[mergeKey])),
          );
          break;
        case 'replace':
          replace = true;
          break;
        case 'merge':
          throw badRequest('merging lists cannot yet be specified in the patch');
        default:
          throw badRequest(`Unknown patch type: ${describe(item[DIRECTIVE])} in map: ${describe(item)}`);
      }
    }
    let toMerge: JsonObject[] = plain;
    if (replace) {
      items = [];
      toMerge = plain;
    }

    const merged = [...items];
    for (const item of toMerge) {
      if (!hasOwn(item, mergeKey)) {
        throw badRequest(`map: ${describe(item)} does not contain declared merge key: ${mergeKey}`);
      }
      const at = merged.findIndex(
        (o) => isObject(o) && hasOwn(o, mergeKey) && deepEqual(o[mergeKey], item[mergeKey]),
      );
      if (at >= 0) merged[at] = this.mergeMap(merged[at] as JsonObject, item, path);
      else merged.push(this.mergeMap({}, item, path));
    }
    if (replace) return merged;
    const [inPatch, serverOnly] = partition(merged, toMerge, mergeKey);
    return normalizeElementOrder(inPatch, serverOnly, toMerge, original, mergeKey);
  }
}

function sliceElementKind(...lists: Json[][]): string {
  let kind: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = jsonKind(v);
      if (k === 'array') throw new SmpError(422, 'lists of lists are not supported');
      if (kind === undefined) kind = k;
      else if (kind !== k) throw badRequest(`list element types are not identical: ${describe(lists)}`);
    }
  }
  return kind ?? 'null';
}

function deleteFromList(current: Json[], toDelete: Json[]): Json[] {
  return current.filter((v) => !toDelete.some((d) => deepEqual(d, v))).map((v) => cloneJson(v));
}

function identity(v: Json, mergeKey: string | undefined): Json | undefined {
  if (mergeKey === undefined) return v;
  return isObject(v) && hasOwn(v, mergeKey) ? v[mergeKey] : undefined;
}

function indexIn(list: readonly Json[], v: Json, mergeKey: string | undefined): number {
  const id = identity(v, mergeKey);
  if (id === undefined) return -1;
  for (let i = 0; i < list.length; i++) {
    if (deepEqual(identity(list[i]!, mergeKey), id)) return i;
  }
  return -1;
}

/** Splits `items` into those present in `by` (by merge key, or by value for scalars) and the rest. */
function partition(items: Json[], by: readonly Json[], mergeKey: string | undefined): [Json[], Json[]] {
  const inBy: Json[] = [];
  const rest: Json[] = [];
  for (const v of items) {
    if (mergeKey !== undefined && !(isObject(v) && hasOwn(v, mergeKey))) {
      throw badRequest(`map: ${describe(v)} does not contain declared merge key: ${mergeKey}`);
    }
    (indexIn(by, v, mergeKey) >= 0 ? inBy : rest).push(v);
  }
  return [inBy, rest];
}

function sortByOrder(items: Json[], order: readonly Json[], mergeKey: string | undefined): Json[] {
  return items
    .map((v, i) => ({ v, i, at: indexIn(order, v, mergeKey) }))
    .sort((a, b) => {
      const x = a.at < 0 ? Infinity : a.at;
      const y = b.at < 0 ? Infinity : b.at;
      return x === y ? a.i - b.i : x - y;
    })
    .map((e) => e.v);
}

/**
 * Sorts the patch items by `patchOrder` and the server-only items by `serverOrder`, then interleaves them: a
 * server-only item goes before a patch item only when both are in the live list and it comes first there.
 */
function normalizeElementOrder(
  patchItems: Json[],
  serverOnly: Json[],
  patchOrder: readonly Json[],
  serverOrder: readonly Json[],
  mergeKey: string | undefined,
): Json[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]!);
    else if (j >= right.length) out.push(left[i++]!);
    else {
      const li = indexIn(serverOrder, left[i]!, mergeKey);
      const ri = indexIn(serverOrder, right[j]!, mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}

/** The patch list (deletions aside) must follow the relative order of its `$setElementOrder` list. */
function validateAgainstOrder(patchList: Json[], order: Json[], mergeKey: string | undefined): void {
  if (patchList.length === 0 || order.length === 0) return;
  const items =
    mergeKey === undefined ? patchList : patchList.filter((v) => !(isObject(v) && v[DIRECTIVE] === 'delete'));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p]!;
    if (isObject(item) && hasOwn(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKey !== undefined) {
      if (!isObject(item) || !hasOwn(item, mergeKey)) {
        throw badRequest(`map: ${describe(item)} does not contain declared merge key: ${mergeKey}`);
      }
      const ord = order[o]!;
      if (!isObject(ord) || !hasOwn(ord, mergeKey)) {
        throw badRequest(`map: ${describe(ord)} does not contain declared merge key: ${mergeKey}`);
      }
      if (deepEqual(item[mergeKey], ord[mergeKey])) p++;
    } else if (deepEqual(item, order[o]!)) {
      p++;
    }
    o++;
  }
  if (p < items.length) {
    throw badRequest(
      `the order in patch list:\n${describe(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${describe(order)}`,
    );
  }
}
