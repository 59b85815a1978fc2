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

export function fakeKube(): FakeKube {
  let rv = 100;
  let uidSeq = 0;
  let nameSeq = 0;
  const clone = <T>(x: T): T => structuredClone(x);
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
  const call = (verb: string, resource: string, name?: string) => {
    const c: Call = { verb, resource, ...(name !== undefined ? { name } : {}) };
    f.calls.push(c);
    const err = f.fault?.(c);
    if (err !== undefined) throw err;
  };
  const notFound = (what: string) => apiError(404, 'NotFound', `${what} not found`);
  const conflict = () => apiError(409, 'Conflict', 'the object has been modified; please apply your changes');
  const removeIfDone = (key: string) => {
    const ps = f.podsets.get(key);
    if (ps?.metadata.deletionTimestamp !== undefined && (ps.metadata.finalizers ?? []).length === 0) {
      f.podsets.delete(key);
    }
  };

  f.kube = {
    podSets: {
      get: async (ns: string, name: string) => {
        call('get', 'podsets', name);
        const ps = f.podsets.get(`${ns}/${name}`);
        if (ps === undefined) throw notFound(name);
        return clone(ps);
      },
      patch: async (
        ns: string,
        name: string,
        patch: {
          metadata: { finalizers?: string[]; annotations?: Record<string, string>; resourceVersion?: string };
        },
      ) => {
        call('patch', 'podsets', name);
        const key = `${ns}/${name}`;
        const ps = f.podsets.get(key);
        if (ps === undefined) throw notFound(name);
        if (
          patch.metadata.resourceVersion !== undefined &&
          patch.metadata.resourceVersion !== ps.metadata.resourceVersion
        ) {
          throw conflict();
        }
        if (patch.metadata.finalizers !== undefined) ps.metadata.finalizers = [...patch.metadata.finalizers];
        if (patch.metadata.annotations !== undefined) {
          ps.metadata.annotations = { ...ps.metadata.annotations, ...patch.metadata.annotations };
        }
        f.bump(ps);
        removeIfDone(key);
        return clone(ps);
      },
      replaceStatus: async (ns: string, name: string, obj: PodSet) => {
        call('update', 'podsets/status', name);
        f.beforeStatusWrite?.();
        const ps = f.podsets.get(`${ns}/${name}`);
        if (ps === undefined) throw notFound(name);
        if (obj.metadata.resourceVersion !== ps.metadata.resourceVersion) throw conflict();
        ps.status = clone(obj.status);
        f.bump(ps);
        return clone(ps);
      },
    },
    pods: {
      get: async (ns: string, name: string) => {
        call('get', 'pods', name);
        const p = f.pods.get(`${ns}/${name}`);
        if (p === undefined) throw notFound(name);
        return clone(p);
      },
      listAll: async (ns: string, opts: { labelSelector?: string }) => {
        call('list', 'pods');
        const [k, v] = (opts.labelSelector ?? '').split('=');
        const items = [...f.pods.values()].filter(
          (p) => p.metadata.namespace === ns && (k === undefined || k === '' || p.metadata.labels?.[k] === v),
        );
        return { metadata: { resourceVersion: String(rv) }, items: clone(items) };
      },
      create: async (ns: string, pod: Pod) => {
        call('create', 'pods');
        const p = clone(pod);
        p.metadata.name = `${p.metadata.generateName ?? ''}${(++nameSeq).toString(36).padStart(5, '0')}`;
        p.metadata.namespace = ns;
        p.metadata.uid = `pod-uid-${++uidSeq}`;
        p.metadata.creationTimestamp = (
          f.now?.() ?? new Date(Date.UTC(2026, 0, 1, 0, 0, nameSeq))
        ).toISOString();
        p.status = { phase: 'Pending' };
        f.bump(p);
        f.pods.set(`${ns}/${p.metadata.name}`, p);
        return clone(p);
      },
      // The JSON patches of the claim rules: `test` ops (a failed one is a 422), `remove` and `add` of
      // ownerReferences.
      patch: async (ns: string, name: string, ops: { op: string; path: string; value?: unknown }[]) => {
        call('patch', 'pods', name);
        const p = f.pods.get(`${ns}/${name}`);
        if (p === undefined) throw notFound(name);
        const next = clone(p) as unknown as Record<string, unknown>;
        for (const o of ops) {
          const parts = o.path.split('/').slice(1);
          const last = parts.pop() as string;
          let at = next as Record<string, unknown> | unknown[];
          for (const part of parts) at = (at as Record<string, unknown>)[part] as Record<string, unknown>;
          const list = Array.isArray(at) ? at : undefined;
          if (o.op === 'test') {
            const here = list ? list[Number(last)] : (at as Record<string, unknown>)[last];
            if (JSON.stringify(here) !== JSON.stringify(o.value))
              throw apiError(422, 'Invalid', 'test failed');
          } else if (o.op === 'remove') {
            if (list) list.splice(Number(last), 1);
            else delete (at as Record<string, unknown>)[last];
          } else if (list && last === '-') list.push(o.value);
          else (at as Record<string, unknown>)[last] = o.value;
        }
        f.bump(next as unknown as Pod);
        f.pods.set(`${ns}/${name}`, next as unknown as Pod);
        return clone(next as unknown as Pod);
      },
      delete: async (ns: string, name: string, opts: { preconditions?: { uid?: string } }) => {
        call('delete', 'pods', name);
        const p = f.pods.get(`${ns}/${name}`);
        if (p === undefined) throw notFound(name);
        if (opts.preconditions?.uid !== undefined && opts.preconditions.uid !== p.metadata.uid) {
          throw apiError(409, 'Conflict', 'Precondition failed: UID in precondition');
        }
        if (f.gracefulDelete) {
          p.metadata.deletionTimestamp ??= (f.now?.() ?? new Date()).toISOString();
          f.bump(p);
          return clone(p);
        }
        f.pods.delete(`${ns}/${name}`);
        return { kind: 'Status', status: 'Success' };
      },
    },
    controllerRevisions: {
      listAll: async (ns: string, opts: { labelSelector?: string }) => {
        call('list', 'controllerrevisions');
        const [k, v] = (opts.labelSelector ?? '').split('=');
        const items = [...f.revisions.values()].filter(
          (r) => r.metadata.namespace === ns && (k === undefined || r.metadata.labels?.[k] === v),
        );
        return { metadata: { resourceVersion: String(rv) }, items: clone(items) };
      },
      create: async (ns: string, r: ControllerRevision) => {
        call('create', 'controllerrevisions', r.metadata.name);
        const key = `${ns}/${r.metadata.name ?? ''}`;
        if (f.revisions.has(key)) throw apiError(409, 'AlreadyExists', `${key} already exists`);
        const made = {
          ...clone(r),
          metadata: { ...clone(r.metadata), namespace: ns, uid: `cr-uid-${++uidSeq}` },
        };
        f.bump(made);
        f.revisions.set(key, made);
        return clone(made);
      },
      get: async (ns: string, name: string) => {
        call('get', 'controllerrevisions', name);
        const r = f.revisions.get(`${ns}/${name}`);
        if (r === undefined) throw notFound(name);
        return clone(r);
      },
      patch: async (ns: string, name: string, patch: { revision: number }) => {
        call('patch', 'controllerrevisions', name);
        const r = f.revisions.get(`${ns}/${name}`);
        if (r === undefined) throw notFound(name);
        r.revision = patch.revision;
        f.bump(r);
        return clone(r);
      },
      delete: async (ns: string, name: string) => {
        call('delete', 'controllerrevisions', name);
        if (!f.revisions.delete(`${ns}/${name}`)) throw notFound(name);
        return { kind: 'Status', status: 'Success' };
      },
    },
    events: {
      create: async (_ns: string, e: CoreEvent) => {
        call('create', 'events');
        f.events.push(clone(e));
        return clone(e);
      },
      patch: async (_ns: string, name: string, patch: { count: number; lastTimestamp: string }) => {
        call('patch', 'events', name);
        const e = f.events.find((x) => x.metadata.name === name);
        if (e === undefined) throw notFound(name);
        Object.assign(e, patch);
        return clone(e);
      },
    },
  } as unknown as Kube;
  return f;
}

/** Mark every pod Running and Ready (what kube-sim's lifecycle does over time). */
export function makeAllReady(f: FakeKube): void {
  for (const p of f.pods.values()) {
    p.spec = { ...p.spec, nodeName: 'node-1' };
    p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    f.bump(p);
  }
}
