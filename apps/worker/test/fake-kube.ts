// An in-memory stand-in for @podset/kube's `Kube`, for controller unit tests: only the calls the
// controller makes, with Kubernetes' rules that matter to it (resourceVersion conflicts, UID
// preconditions, generateName, finalizers holding a deletion) and a hook to inject errors.
import {
  KubeApiError,
  type ControllerRevision,
  type CoreEvent,
  type Kube,
  type Pod,
  type PodSet,
} from '@podset/kube';

export interface Call {
  verb: string;
  resource: string;
  name?: string;
}

export interface FakeKube {
  kube: Kube;
  podsets: Map<string, PodSet>;
  pods: Map<string, Pod>;
  revisions: Map<string, ControllerRevision>;
  events: CoreEvent[];
  calls: Call[];
  /** Return an error to make that call fail. */
  fault: ((call: Call) => KubeApiError | undefined) | undefined;
  /** Called before a status PUT is applied (e.g. to change the object behind the writer's back). */
  beforeStatusWrite: (() => void) | undefined;
  /** Deleted pods terminate (deletionTimestamp set, pod kept) instead of vanishing at once. */
  gracefulDelete: boolean;
  /** The clock for pod creation and deletion times. Default: a second per pod from 2026-01-01. */
  now: (() => Date) | undefined;
  addPodSet(ns: string, name: string, replicas: number, extra?: Partial<PodSet['metadata']>): PodSet;
  bump(obj: { metadata: { resourceVersion?: string } }): void;
}

export function apiError(code: number, reason: string, message: string): KubeApiError {
  return new KubeApiError({ code, reason, message, verb: 'x', path: '/x' });
}

/** What the fake's resources share: its state, the call log with its fault hook, counters and errors. */
interface Ctx {
  f: FakeKube;
  /** The newest resourceVersion handed out. */
  readonly rv: number;
  /** How many names generateName has made (the creation clock's seconds too). */
  readonly nameSeq: number;
  nextUid(): number;
  nextName(): number;
  call(verb: string, resource: string, name?: string): void;
  notFound(what: string): KubeApiError;
  conflict(): KubeApiError;
  /** Drops a deleted PodSet once no finalizer holds it. */
  removeIfDone(key: string): void;
}

const clone = <T>(x: T): T => structuredClone(x);

export function fakeKube(): FakeKube {
  let rv = 100;
  let uidSeq = 0;
  let nameSeq = 0;
  const f: FakeKube = {
    podsets: new Map(),
    pods: new Map(),
    revisions: new Map(),
    events: [],
    calls: [],
    fault: undefined,
    beforeStatusWrite: undefined,
    gracefulDelete: false,
    now: undefined,
    bump(obj) {
      obj.metadata.resourceVersion = String(++rv);
    },
    addPodSet(ns, name, replicas, extra = {}) {
      const ps: PodSet = {
        apiVersion: 'podset.io/v1',
        kind: 'PodSet',
        metadata: { namespace: ns, name, uid: `ps-uid-${++uidSeq}`, generation: 1, ...extra },
        spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'busybox' }] } } },
      };
      f.bump(ps);
      f.podsets.set(`${ns}/${name}`, ps);
      return clone(ps);
    },
    kube: undefined as unknown as Kube,
  };
  const c: Ctx = {
    f,
    get rv() {
      return rv;
    },
    get nameSeq() {
      return nameSeq;
    },
    nextUid: () => ++uidSeq,
    nextName: () => ++nameSeq,
    call(verb, resource, name) {
      const made: Call = { verb, resource, ...(name !== undefined ? { name } : {}) };
      f.calls.push(made);
      const err = f.fault?.(made);
      if (err !== undefined) throw err;
    },
    notFound: (what) => apiError(404, 'NotFound', `${what} not found`),
    conflict: () => apiError(409, 'Conflict', 'the object has been modified; please apply your changes'),
    removeIfDone(key) {
      const ps = f.podsets.get(key);
      if (ps?.metadata.deletionTimestamp !== undefined && (ps.metadata.finalizers ?? []).length === 0) {
        f.podsets.delete(key);
      }
    },
  };
  f.kube = {
    podSets: fakePodSets(c),
    pods: fakePods(c),
    controllerRevisions: fakeRevisions(c),
    events: fakeEvents(c),
  } as unknown as Kube;
  return f;
}

function fakePodSets(c: Ctx) {
  return {
    get: async (ns: string, name: string) => {
      c.call('get', 'podsets', name);
      const ps = c.f.podsets.get(`${ns}/${name}`);
      if (ps === undefined) throw c.notFound(name);
      return clone(ps);
    },
    patch: async (
      ns: string,
      name: string,
      patch: {
        metadata: { finalizers?: string[]; annotations?: Record<string, string>; resourceVersion?: string };
      },
    ) => {
      c.call('patch', 'podsets', name);
      const key = `${ns}/${name}`;
      const ps = c.f.podsets.get(key);
      if (ps === undefined) throw c.notFound(name);
      if (
        patch.metadata.resourceVersion !== undefined &&
        patch.metadata.resourceVersion !== ps.metadata.resourceVersion
      ) {
        throw c.conflict();
      }
      if (patch.metadata.finalizers !== undefined) ps.metadata.finalizers = [...patch.metadata.finalizers];
      if (patch.metadata.annotations !== undefined) {
        ps.metadata.annotations = { ...ps.metadata.annotations, ...patch.metadata.annotations };
      }
      c.f.bump(ps);
      c.removeIfDone(key);
      return clone(ps);
    },
    replaceStatus: async (ns: string, name: string, obj: PodSet) => {
      c.call('update', 'podsets/status', name);
      c.f.beforeStatusWrite?.();
      const ps = c.f.podsets.get(`${ns}/${name}`);
      if (ps === undefined) throw c.notFound(name);
      if (obj.metadata.resourceVersion !== ps.metadata.resourceVersion) throw c.conflict();
      ps.status = clone(obj.status);
      c.f.bump(ps);
      return clone(ps);
    },
  };
}

function fakePods(c: Ctx) {
  return {
    get: async (ns: string, name: string) => {
      c.call('get', 'pods', name);
      const p = c.f.pods.get(`${ns}/${name}`);
      if (p === undefined) throw c.notFound(name);
      return clone(p);
    },
    listAll: async (ns: string, opts: { labelSelector?: string }) => {
      c.call('list', 'pods');
      const [k, v] = (opts.labelSelector ?? '').split('=');
      const items = [...c.f.pods.values()].filter(
        (p) => p.metadata.namespace === ns && (k === undefined || k === '' || p.metadata.labels?.[k] === v),
      );
      return { metadata: { resourceVersion: String(c.rv) }, items: clone(items) };
    },
    create: async (ns: string, pod: Pod) => {
      c.call('create', 'pods');
      const p = clone(pod);
      p.metadata.name = `${p.metadata.generateName ?? ''}${c.nextName().toString(36).padStart(5, '0')}`;
      p.metadata.namespace = ns;
      p.metadata.uid = `pod-uid-${c.nextUid()}`;
      p.metadata.creationTimestamp = (
        c.f.now?.() ?? new Date(Date.UTC(2026, 0, 1, 0, 0, c.nameSeq))
      ).toISOString();
      p.status = { phase: 'Pending' };
      c.f.bump(p);
      c.f.pods.set(`${ns}/${p.metadata.name}`, p);
      return clone(p);
    },
    patch: async (ns: string, name: string, ops: { op: string; path: string; value?: unknown }[]) => {
      c.call('patch', 'pods', name);
      const p = c.f.pods.get(`${ns}/${name}`);
      if (p === undefined) throw c.notFound(name);
      const next = applyJsonPatch(clone(p) as unknown as Record<string, unknown>, ops);
      c.f.bump(next as unknown as Pod);
      c.f.pods.set(`${ns}/${name}`, next as unknown as Pod);
      return clone(next as unknown as Pod);
    },
    delete: async (ns: string, name: string, opts: { preconditions?: { uid?: string } }) => {
      c.call('delete', 'pods', name);
      const p = c.f.pods.get(`${ns}/${name}`);
      if (p === undefined) throw c.notFound(name);
      if (opts.preconditions?.uid !== undefined && opts.preconditions.uid !== p.metadata.uid) {
        throw apiError(409, 'Conflict', 'Precondition failed: UID in precondition');
      }
      if (c.f.gracefulDelete) {
        p.metadata.deletionTimestamp ??= (c.f.now?.() ?? new Date()).toISOString();
        c.f.bump(p);
        return clone(p);
      }
      c.f.pods.delete(`${ns}/${name}`);
      return { kind: 'Status', status: 'Success' };
    },
  };
}

/** The JSON patches of the claim rules: `test` ops (a failed one is a 422), `remove` and `add` of ownerReferences. */
function applyJsonPatch(
  next: Record<string, unknown>,
  ops: { op: string; path: string; value?: unknown }[],
): Record<string, unknown> {
  for (const o of ops) {
    const parts = o.path.split('/').slice(1);
    const last = parts.pop() as string;
    let at = next as Record<string, unknown> | unknown[];
    for (const part of parts) at = (at as Record<string, unknown>)[part] as Record<string, unknown>;
    const list = Array.isArray(at) ? at : undefined;
    if (o.op === 'test') {
      const here = list ? list[Number(last)] : (at as Record<string, unknown>)[last];
      if (JSON.stringify(here) !== JSON.stringify(o.value)) throw apiError(422, 'Invalid', 'test failed');
    } else if (o.op === 'remove') {
      if (list) list.splice(Number(last), 1);
      else delete (at as Record<string, unknown>)[last];
    } else if (list && last === '-') list.push(o.value);
    else (at as Record<string, unknown>)[last] = o.value;
  }
  return next;
}

function fakeRevisions(c: Ctx) {
  return {
    listAll: async (ns: string, opts: { labelSelector?: string }) => {
      c.call('list', 'controllerrevisions');
      const [k, v] = (opts.labelSelector ?? '').split('=');
      const items = [...c.f.revisions.values()].filter(
        (r) => r.metadata.namespace === ns && (k === undefined || r.metadata.labels?.[k] === v),
      );
      return { metadata: { resourceVersion: String(c.rv) }, items: clone(items) };
    },
    create: async (ns: string, r: ControllerRevision) => {
      c.call('create', 'controllerrevisions', r.metadata.name);
      const key = `${ns}/${r.metadata.name ?? ''}`;
      if (c.f.revisions.has(key)) throw apiError(409, 'AlreadyExists', `${key} already exists`);
      const made = {
        ...clone(r),
        metadata: { ...clone(r.metadata), namespace: ns, uid: `cr-uid-${c.nextUid()}` },
      };
      c.f.bump(made);
      c.f.revisions.set(key, made);
      return clone(made);
    },
    get: async (ns: string, name: string) => {
      c.call('get', 'controllerrevisions', name);
      const r = c.f.revisions.get(`${ns}/${name}`);
      if (r === undefined) throw c.notFound(name);
      return clone(r);
    },
    patch: async (ns: string, name: string, patch: { revision: number }) => {
      c.call('patch', 'controllerrevisions', name);
      const r = c.f.revisions.get(`${ns}/${name}`);
      if (r === undefined) throw c.notFound(name);
      r.revision = patch.revision;
      c.f.bump(r);
      return clone(r);
    },
    delete: async (ns: string, name: string) => {
      c.call('delete', 'controllerrevisions', name);
      if (!c.f.revisions.delete(`${ns}/${name}`)) throw c.notFound(name);
      return { kind: 'Status', status: 'Success' };
    },
  };
}

function fakeEvents(c: Ctx) {
  return {
    create: async (_ns: string, e: CoreEvent) => {
      c.call('create', 'events');
      c.f.events.push(clone(e));
      return clone(e);
    },
    patch: async (_ns: string, name: string, patch: { count: number; lastTimestamp: string }) => {
      c.call('patch', 'events', name);
      const e = c.f.events.find((x) => x.metadata.name === name);
      if (e === undefined) throw c.notFound(name);
      Object.assign(e, patch);
      return clone(e);
    },
  };
}

/** Mark every pod Running and Ready (what kube-sim's lifecycle does over time). */
export function makeAllReady(f: FakeKube): void {
  for (const p of f.pods.values()) {
    p.spec = { ...p.spec, nodeName: 'node-1' };
    p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    f.bump(p);
  }
}
