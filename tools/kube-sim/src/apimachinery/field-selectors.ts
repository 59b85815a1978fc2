// Field selectors, parsed the way k8s.io/apimachinery parses them (fields.ParseSelector), with the fields
// each resource lets a client select on.
//
// Performance: a selector can be compiled for a resource into a function that reads only the fields it names
// straight off the object (see compileFieldSelector), so listing 100k pods does not build a field map per pod.
import { ApiError, type Json, type KubeObject } from './types.ts';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '==' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
}

/** Splits on commas not escaped by a backslash (fields.splitTerms). */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new ApiError(400, 'BadRequest', `invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      throw new ApiError(400, 'BadRequest', `invalid field selector: unescaped character in value: ${c}`);
    } else out += c;
  }
  if (inSlash) throw new ApiError(400, 'BadRequest', 'invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes `\`, `,` and `=` in a value so it can sit in a field selector (fields.EscapeValue). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Parses `metadata.name=x,status.phase!=Running`; throws ApiError 400. */
export function parseFieldSelector(text: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(text).sort()) {
    if (term === '') continue;
    let found: FieldRequirement | undefined;
    for (let i = 0; i < term.length && found === undefined; i++) {
      for (const op of ['!=', '==', '='] as const) {
        if (term.startsWith(op, i)) {
          found = {
            field: term.slice(0, i),
            operator: op,
            value: unescapeFieldValue(term.slice(i + op.length)),
          };
          break;
        }
      }
    }
    if (found === undefined) {
      throw new ApiError(400, 'BadRequest', `invalid selector: '${text}'; can't understand '${term}'`);
    }
    requirements.push(found);
  }
  return { requirements };
}

/** The value a selector demands for a field with `=`/`==` (for index lookups), or undefined. */
export function fieldSelectorRequiredValue(selector: FieldSelector, field: string): string | undefined {
  for (const r of selector.requirements) {
    if (r.field === field && r.operator !== '!=') return r.value;
  }
  return undefined;
}

type FieldGetter = (o: KubeObject) => string;

function path(o: unknown, a: string, b?: string): Json | undefined {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const x = (o as Record<string, Json | undefined>)[a];
  if (b === undefined) return x;
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return undefined;
  return x[b];
}
function str(v: Json | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}
function bool(v: Json | undefined): string {
  return v === true ? 'true' : 'false';
}
function num(v: Json | undefined): string {
  return typeof v === 'number' ? String(v) : '0';
}
/** A getter for `o[a]` or `o[a][b]` as a string (written out rather than generic: it runs per object). */
function get(a: string, b?: string): FieldGetter {
  if (b === undefined) return (o) => str(o[a] as Json | undefined);
  return (o) => {
    const x = o[a];
    return x !== null && typeof x === 'object' && !Array.isArray(x)
      ? str((x as Record<string, Json>)[b])
      : '';
  };
}

const META_FIELDS: Record<string, FieldGetter> = {
  'metadata.name': (o) => o.metadata.name ?? '',
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

function objectRefFields(prefix: string, ref: string): Record<string, FieldGetter> {
  const out: Record<string, FieldGetter> = {};
  for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) {
    out[`${prefix}.${f}`] = get(ref, f);
  }
  return out;
}

/** Selectable fields per resource id, beyond metadata.name and metadata.namespace (which every resource has). */
const RESOURCE_FIELDS: Record<string, Record<string, FieldGetter>> = {
  pods: {
    'spec.nodeName': get('spec', 'nodeName'),
    'spec.restartPolicy': get('spec', 'restartPolicy'),
    'spec.schedulerName': get('spec', 'schedulerName'),
    'spec.serviceAccountName': get('spec', 'serviceAccountName'),
    'spec.hostNetwork': (o) => bool(path(o, 'spec', 'hostNetwork')),
    'status.phase': get('status', 'phase'),
    'status.podIP': (o) => {
      const ips = path(o, 'status', 'podIPs');
      if (Array.isArray(ips) && ips.length > 0) return str(path(ips[0], 'ip'));
      return str(path(o, 'status', 'podIP'));
    },
    'status.nominatedNodeName': get('status', 'nominatedNodeName'),
  },
  events: {
    ...objectRefFields('involvedObject', 'involvedObject'),
    reason: get('reason'),
    reportingComponent: get('reportingComponent'),
    source: get('source', 'component'),
    type: get('type'),
  },
  'events.events.k8s.io': {
    ...objectRefFields('regarding', 'regarding'),
    reason: get('reason'),
    type: get('type'),
    reportingController: get('reportingController'),
  },
  namespaces: { 'status.phase': get('status', 'phase'), name: (o) => o.metadata.name ?? '' },
  secrets: { type: get('type') },
  nodes: { 'spec.unschedulable': (o) => bool(path(o, 'spec', 'unschedulable')) },
  replicationcontrollers: { 'status.replicas': (o) => num(path(o, 'status', 'replicas')) },
  'replicasets.apps': { 'status.replicas': (o) => num(path(o, 'status', 'replicas')) },
  'jobs.batch': { 'status.successful': (o) => num(path(o, 'status', 'succeeded')) },
  'certificatesigningrequests.certificates.k8s.io': { 'spec.signerName': get('spec', 'signerName') },
};

function gettersFor(resource: string): Record<string, FieldGetter> {
  const extra = RESOURCE_FIELDS[resource];
  return extra === undefined ? META_FIELDS : { ...META_FIELDS, ...extra };
}
const GETTER_CACHE = new Map<string, Record<string, FieldGetter>>();
const ENTRY_CACHE = new Map<string, [string, FieldGetter][]>();
function cachedGetters(resource: string): Record<string, FieldGetter> {
  let g = GETTER_CACHE.get(resource);
  if (g === undefined) {
    g = gettersFor(resource);
    GETTER_CACHE.set(resource, g);
  }
  return g;
}
function cachedEntries(resource: string): [string, FieldGetter][] {
  let e = ENTRY_CACHE.get(resource);
  if (e === undefined) {
    e = Object.entries(cachedGetters(resource));
    ENTRY_CACHE.set(resource, e);
  }
  return e;
}

/**
 * The selectable fields of an object of the given resource id (`pods`, `events`, `events.events.k8s.io`, ...).
 * Always metadata.name and metadata.namespace; resource-specific ones (pods: status.phase, spec.nodeName, ...).
 */
export function selectableFields(resource: string, object: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = cachedEntries(resource);
  for (let i = 0; i < entries.length; i++) {
    const [name, getter] = entries[i]!;
    out[name] = getter(object);
  }
  return out;
}

/** Throws ApiError 400 `field label not supported: x` when the selector names a field the resource lacks. */
export function checkFieldSelectorSupported(resource: string, selector: FieldSelector): void {
  const getters = cachedGetters(resource);
  for (const r of selector.requirements) {
    if (!Object.hasOwn(getters, r.field)) {
      throw new ApiError(400, 'BadRequest', `field label not supported: ${r.field}`);
    }
  }
}

export function matchesFields(selector: FieldSelector, fields: Record<string, string>): boolean {
  for (const r of selector.requirements) {
    const v = Object.hasOwn(fields, r.field) ? fields[r.field]! : '';
    if (r.operator === '!=' ? v === r.value : v !== r.value) return false;
  }
  return true;
}

/**
 * Checks support (throws 400 like checkFieldSelectorSupported) and returns a matcher reading only the named
 * fields off each object — what list and watch should use per object.
 */
export function compileFieldSelector(
  resource: string,
  selector: FieldSelector,
): (object: KubeObject) => boolean {
  checkFieldSelectorSupported(resource, selector);
  const getters = cachedGetters(resource);
  const reqs = selector.requirements.map((r) => ({
    get: getters[r.field]!,
    negate: r.operator === '!=',
    value: r.value,
  }));
  if (reqs.length === 0) return () => true;
  return (object) => {
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      if ((r.get(object) === r.value) === r.negate) return false;
    }
    return true;
  };
}
