// Lists: label and field selectors, reads at a resourceVersion (NotOlderThan, Exact), and paging with
// limit and continue tokens, as the generic store's List serves them.
import { compareKeys, type Rec, type Store } from '../storage/store.ts';
import { ApiError, type KubeObject, type ResourceType } from '../apimachinery/types.ts';
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
import { needsConversion } from './conversion.ts';
import { tooLargeResourceVersion } from './rest/errors.ts';
import { apiResourceId, resourceId } from './rest/resources.ts';

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

/** How a stored object is seen through the resource listed (for field selectors of a converted API). */
export type Present = (t: ResourceType, obj: KubeObject) => KubeObject;

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

export function parseFilter(
  t: ResourceType,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
  present: Present,
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
    (!fs || matchesFields(fs, selectableFields(id, convert ? present(t, obj) : obj)));
  return { filter, labels: ls };
}

/** Reads the objects at a resourceVersion (undefined: the current state). */
type Read = (at: number | undefined) => readonly Rec[];

/** The objects to page through, the resourceVersion they are of, and the continue key to start after. */
function listSource(
  q: ListQuery,
  read: Read,
  current: number,
): { recs: readonly Rec[]; listRv: number; startAfter?: string } {
  if (q.continue) {
    const tok = decodeContinue(q.continue);
    try {
      return { recs: read(tok.rv), listRv: tok.rv, startAfter: tok.start };
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
  }
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
    if (rv > current) throw tooLargeResourceVersion(rv, current);
    if (match === 'Exact') return { recs: read(rv), listRv: rv };
    return { recs: read(undefined), listRv: current };
  }
  if (q.resourceVersion === '0' && match === 'Exact') {
    throw new ApiError(422, 'Invalid', 'resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
  }
  return { recs: read(undefined), listRv: current };
}

/** The index of the first object after the continue key, in the list's order (namespace, then name). */
function firstAfter(recs: readonly Rec[], startAfter: string): number {
  const notAfter = startKeyTest(startAfter);
  let lo = 0;
  let hi = recs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (notAfter(recs[mid] as Rec)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function listObjects(
  store: Store,
  t: ResourceType,
  ns: string | undefined,
  q: ListQuery,
  present: Present,
): ListResult {
  const id = resourceId(t);
  const namespace = t.namespaced ? ns : undefined;
  const { filter, labels } = parseFilter(t, q.labelSelector, q.fieldSelector, present);
  const equalities = labels ? labelSelectorEqualities(labels) : [];
  // The objects to page through (the filter is applied below). With equality label requirements, a read of
  // the current state takes them from the store's label index: a subsequence of the full sorted list holding
  // every object the selector can match, so items, order, limit and continue keys come out the same. Reads
  // at an older resourceVersion (a continue or an Exact read after later changes) use the full list.
  const read: Read = (at) => {
    if (equalities.length > 0 && (at === undefined || at >= store.lastChange(id))) {
      return store.listByLabel(id, namespace, equalities);
    }
    return at === undefined ? store.list(id, namespace) : store.listAt(id, namespace, at);
  };
  const { recs, listRv, startAfter } = listSource(q, read, store.resourceVersion);
  let i = startAfter !== undefined ? firstAfter(recs, startAfter) : 0;
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
