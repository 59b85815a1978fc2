// The store's incrementally kept sorted views and its label index (docs/PERFORMANCE.md F3), checked against a
// brute-force model: after random puts, removes and label changes, `list`, `listByLabel`, `listAt` and the
// API's LIST (label and field selectors, limit, continue across writes) must give exactly what sorting and
// filtering every object gives; arrays handed out earlier must never change (copy-on-write).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Api } from '../registry/api.ts';
import { Registry } from '../registry/rest/resources.ts';
import { labelSelectorEqualities, parseLabelSelector } from '../apimachinery/selectors.ts';
import { type Rec, Store } from './store.ts';
import type { KubeObject, ResourceType } from '../apimachinery/types.ts';

const R = 'configmaps';
// "a" and "a-b": the namespace order ("a" < "a-b") differs from the `namespace/name` string order
// ("a-b/x" < "a/x"), which a cluster-wide continue key must respect.
const NAMESPACES = ['a', 'a-b', 'b'];
const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n10', 'x'];
const KEYS = ['app', 'tier', 'podset.io/name'];
const VALUES = ['v1', 'v2', 'v3'];

type Labels = Record<string, string>;
interface ModelObj {
  ns: string;
  name: string;
  labels: Labels | undefined;
  /** Bumped on every write, so that a stale record (old labels, old data) is told apart from the current. */
  gen: number;
}
type Model = Map<string, ModelObj>;

type Op =
  | { kind: 'put'; ns: string; name: string; labels: Labels | undefined }
  | { kind: 'remove'; ns: string; name: string };

const labelsArb: fc.Arbitrary<Labels | undefined> = fc.option(
  fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 3 }),
  { nil: undefined, freq: 5 },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      ns: fc.constantFrom(...NAMESPACES),
      name: fc.constantFrom(...NAMES),
      labels: labelsArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('remove' as const),
      ns: fc.constantFrom(...NAMESPACES),
      name: fc.constantFrom(...NAMES),
    }),
  },
);

function cm(o: ModelObj): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: o.name, namespace: o.ns, ...(o.labels ? { labels: o.labels } : {}) },
    data: { gen: String(o.gen) },
  };
}

let gen = 0;
function apply(store: Store, model: Model, op: Op): void {
  const key = `${op.ns}/${op.name}`;
  if (op.kind === 'put') {
    const o: ModelObj = { ns: op.ns, name: op.name, labels: op.labels, gen: ++gen };
    store.put(R, cm(o));
    model.set(key, o);
  } else {
    store.remove(R, op.ns, op.name);
    model.delete(key);
  }
}

/** namespace, then name, comparing UTF-16 code units (the store's order). */
function byKey(a: ModelObj, b: ModelObj): number {
  if (a.ns !== b.ns) return a.ns < b.ns ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function sortedModel(model: Model, ns?: string): ModelObj[] {
  return [...model.values()].filter((o) => ns === undefined || o.ns === ns).sort(byKey);
}

/** A record as `ns/name#gen`, so that a stale record in a view shows up as a difference. */
const recId = (r: Rec): string =>
  `${r.obj.metadata.namespace}/${r.obj.metadata.name}#${(r.obj as unknown as { data: Labels }).data.gen}`;
const modelId = (o: ModelObj): string => `${o.ns}/${o.name}#${o.gen}`;

// ------------------------------------------------------------------------------------------------------------
// A tiny reference label/field selector (independent of selectors.ts) for the selectors generated here.

interface Req {
  key: string;
  op: '=' | '==' | 'in' | 'notin' | '!=' | 'exists' | '!';
  values: string[];
}

function formatReq(r: Req): string {
  switch (r.op) {
    case 'in':
    case 'notin':
      return `${r.key} ${r.op} (${r.values.join(',')})`;
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    default:
      return `${r.key}${r.op}${r.values[0]}`;
  }
}

function reqMatches(r: Req, labels: Labels | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  switch (r.op) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v!);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'exists':
      return has;
    case '!':
      return !has;
  }
}

const reqArb: fc.Arbitrary<Req> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      key: fc.constantFrom(...KEYS),
      op: fc.constantFrom('=' as const, '==' as const),
      values: fc.constantFrom(...VALUES).map((v) => [v]),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      key: fc.constantFrom(...KEYS),
      op: fc.constant('in' as const),
      values: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      key: fc.constantFrom(...KEYS),
      op: fc.constantFrom('!=' as const, 'notin' as const),
      values: fc.constantFrom(...VALUES).map((v) => [v]),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      key: fc.constantFrom(...KEYS),
      op: fc.constantFrom('exists' as const, '!' as const),
      values: fc.constant([] as string[]),
    }),
  },
);

interface Query {
  ns: string | undefined;
  reqs: Req[];
  /** metadata.name!=<name>, or none. */
  notName: string | undefined;
  limit: number | undefined;
}

const queryArb: fc.Arbitrary<Query> = fc.record({
  ns: fc.option(fc.constantFrom(...NAMESPACES), { nil: undefined, freq: 3 }),
  reqs: fc.uniqueArray(reqArb, { minLength: 0, maxLength: 3, selector: (r) => r.key }),
  notName: fc.option(fc.constantFrom(...NAMES), { nil: undefined, freq: 2 }),
  limit: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined, freq: 3 }),
});

function expected(model: Model, q: Query): string[] {
  return sortedModel(model, q.ns)
    .filter((o) => q.reqs.every((r) => reqMatches(r, o.labels)) && o.name !== q.notName)
    .map(modelId);
}

function newApi(store: Store): { api: Api; t: ResourceType } {
  const registry = new Registry();
  const api = new Api(store, registry);
  return { api, t: registry.lookup('', 'v1', 'configmaps') as ResourceType };
}

// ------------------------------------------------------------------------------------------------------------

test('sorted views, label index and listAt equal a brute-force sort and filter after random writes', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(opArb, fc.nat(9)), { minLength: 1, maxLength: 120 }),
      fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)), {
        minLength: 1,
        maxLength: 3,
      }),
      (steps, pairs) => {
        const store = new Store(1000);
        const model: Model = new Map();
        // rv → the model's objects then; arrays handed out → their contents then (must never change).
        const snapshots: [number, ModelObj[]][] = [];
        const held: [readonly Rec[], string[]][] = [];
        const hold = (a: readonly Rec[]): readonly Rec[] => {
          held.push([a, a.map(recId)]);
          return a;
        };
        for (const [op, check] of steps) {
          apply(store, model, op);
          snapshots.push([store.resourceVersion, sortedModel(model)]);
          // Read now and then (the views and the index are built lazily, then kept up to date).
          if (check < 3) continue;
          for (const ns of [undefined, ...NAMESPACES]) {
            assert.deepEqual(hold(store.list(R, ns)).map(recId), sortedModel(model, ns).map(modelId));
            // listByLabel: the objects carrying the pair carried by the fewest (first of equals), sorted.
            const carrying = (k: string, v: string) =>
              sortedModel(model, ns).filter((o) => o.labels?.[k] === v);
            let best = carrying(...pairs[0]!);
            for (const p of pairs.slice(1)) {
              const c = carrying(...p);
              if (c.length < best.length) best = c;
            }
            assert.deepEqual(hold(store.listByLabel(R, ns, pairs)).map(recId), best.map(modelId));
          }
        }
        for (const [a, ids] of held) assert.deepEqual(a.map(recId), ids, 'a handed-out array changed');
        for (const [rv, objs] of snapshots.slice(-20)) {
          for (const ns of [undefined, ...NAMESPACES]) {
            assert.deepEqual(
              store.listAt(R, ns, rv).map(recId),
              objs.filter((o) => ns === undefined || o.ns === ns).map(modelId),
              `listAt ${rv} ${ns ?? '*'}`,
            );
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('LIST with label and field selectors, limit and continue across writes equals brute force', () => {
  fc.assert(
    fc.property(
      fc.array(opArb, { minLength: 0, maxLength: 60 }),
      fc.array(fc.tuple(queryArb, fc.array(opArb, { maxLength: 8 })), { minLength: 1, maxLength: 8 }),
      (setup, queries) => {
        const store = new Store(1000);
        const model: Model = new Map();
        const { api, t } = newApi(store);
        for (const op of setup) apply(store, model, op);
        for (const [q, writesBetweenPages] of queries) {
          // The whole (paged) list must be the state when its first page was read, in order, however the
          // objects change between pages: continue pages are reads at the first page's resourceVersion.
          const want = expected(model, q);
          const labelSelector = q.reqs.map(formatReq).join(',') || undefined;
          const fieldSelector = q.notName !== undefined ? `metadata.name!=${q.notName}` : undefined;
          const got: string[] = [];
          let cont: string | undefined;
          let rv: number | undefined;
          let pages = 0;
          do {
            const page = api.list(t, q.ns, { labelSelector, fieldSelector, limit: q.limit, continue: cont });
            rv ??= page.resourceVersion;
            assert.equal(page.resourceVersion, rv);
            assert.ok(page.items.length <= (q.limit ?? Infinity));
            got.push(...page.items.map(recId));
            cont = page.continue;
            if (cont !== undefined) assert.equal(page.items.length, q.limit, 'a page with more is full');
            pages++;
            for (const op of writesBetweenPages) apply(store, model, op);
          } while (cont !== undefined && pages < 100);
          assert.deepEqual(got, want, `${q.ns ?? '*'} ${labelSelector} ${fieldSelector} limit=${q.limit}`);
          // And the last page has no continue exactly when nothing matched was left.
          if (q.limit !== undefined) assert.equal(pages, Math.max(1, Math.ceil(want.length / q.limit)));
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('label index follows label changes and deletes; candidates are the smallest equality set', () => {
  const store = new Store(100);
  const put = (name: string, labels: Labels | undefined, ns = 'default') =>
    store.put(R, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    });
  const names = (a: readonly Rec[]) => a.map((r) => r.obj.metadata.name);
  put('c', { app: 'web', tier: 'fe' });
  put('a', { app: 'web' });
  put('b', { app: 'db' });
  assert.deepEqual(names(store.listByLabel(R, 'default', [['app', 'web']])), ['a', 'c']);
  const held = store.listByLabel(R, 'default', [['app', 'web']]);
  put('b', { app: 'web' }); // label change: db → web
  assert.deepEqual(names(store.listByLabel(R, 'default', [['app', 'web']])), ['a', 'b', 'c']);
  assert.deepEqual(names(store.listByLabel(R, 'default', [['app', 'db']])), []);
  assert.deepEqual(names(held), ['a', 'c'], 'the array handed out before did not change');
  put('a', undefined); // labels removed
  store.remove(R, 'default', 'c');
  assert.deepEqual(names(store.listByLabel(R, 'default', [['app', 'web']])), ['b']);
  put('d', { app: 'web', tier: 'fe' });
  // The smaller set (tier=fe: d) is taken, not app=web (b, d).
  assert.deepEqual(
    names(
      store.listByLabel(R, 'default', [
        ['app', 'web'],
        ['tier', 'fe'],
      ]),
    ),
    ['d'],
  );
  put('z', { app: 'web' }, 'other');
  assert.deepEqual(names(store.listByLabel(R, undefined, [['app', 'web']])), ['b', 'd', 'z']);
  assert.deepEqual(names(store.listByLabel(R, 'nowhere', [['app', 'web']])), []);
  assert.deepEqual(names(store.listByLabel('secrets', 'default', [['app', 'web']])), []);
});

test('a cluster-wide paged LIST does not skip namespace "a-b" after "a" ("a-b/x" < "a/x" as strings)', () => {
  const store = new Store(100);
  const { api, t } = newApi(store);
  for (const ns of ['a', 'a-b', 'b']) {
    store.put(R, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: ns, labels: { app: 'web' } },
    });
  }
  for (const labelSelector of [undefined, 'app=web', 'app in (web)', 'app!=db']) {
    const seen: string[] = [];
    let cont: string | undefined;
    do {
      const page = api.list(t, undefined, { labelSelector, limit: 1, continue: cont });
      seen.push(...page.items.map((r) => `${r.obj.metadata.namespace}/${r.obj.metadata.name}`));
      cont = page.continue;
    } while (cont !== undefined && seen.length < 10);
    assert.deepEqual(seen, ['a/x', 'a-b/x', 'b/x'], String(labelSelector));
  }
});

test('paged LIST by label across writes: index for current reads, the old state for continue pages', () => {
  const store = new Store(1000);
  const { api, t } = newApi(store);
  const put = (i: number, group: string, extra: Labels = {}) =>
    store.put(R, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `p-${String(i).padStart(3, '0')}`,
        namespace: 'default',
        labels: { 'podset.io/name': group, ...extra },
      },
    });
  for (let i = 0; i < 100; i++) put(i, `g${i % 10}`);
  const sel = 'podset.io/name=g3';
  const first = api.list(t, 'default', { labelSelector: sel, limit: 4 });
  assert.deepEqual(
    first.items.map((r) => r.obj.metadata.name),
    ['p-003', 'p-013', 'p-023', 'p-033'],
  );
  assert.ok(first.continue);
  assert.equal(first.remainingItemCount, undefined);
  // Between pages: move p-043 out of g3, p-050 into it, delete p-053, add p-999 — the rest of this list
  // still shows the state of its first page.
  put(43, 'g4');
  put(50, 'g3');
  store.remove(R, 'default', 'p-053');
  put(999, 'g3');
  const rest: string[] = [];
  let cont: string | undefined = first.continue;
  while (cont) {
    const page = api.list(t, 'default', { labelSelector: sel, limit: 4, continue: cont });
    assert.equal(page.resourceVersion, first.resourceVersion);
    rest.push(...page.items.map((r) => r.obj.metadata.name as string));
    cont = page.continue;
  }
  assert.deepEqual(rest, ['p-043', 'p-053', 'p-063', 'p-073', 'p-083', 'p-093']);
  // A new list sees the changes (through the index).
  const now = api.list(t, 'default', { labelSelector: `${sel},tier!=x` });
  assert.deepEqual(
    now.items.map((r) => r.obj.metadata.name),
    ['p-003', 'p-013', 'p-023', 'p-033', 'p-050', 'p-063', 'p-073', 'p-083', 'p-093', 'p-999'],
  );
  assert.equal(now.resourceVersion, store.resourceVersion);
  // limit exactly the number of matches: no continue.
  const exact = api.list(t, 'default', { labelSelector: sel, limit: 10 });
  assert.equal(exact.items.length, 10);
  assert.equal(exact.continue, undefined);
});

test('views not read for many changes are dropped and rebuilt; the arrays handed out before stay as they were', () => {
  const store = new Store(10);
  const model: Model = new Map();
  const ops = fc.sample(opArb, { numRuns: 6000, seed: 42 });
  const held: [readonly Rec[], string[]][] = [];
  const check = () => {
    for (const ns of [undefined, ...NAMESPACES]) {
      const all = store.list(R, ns);
      held.push([all, all.map(recId)]);
      assert.deepEqual(all.map(recId), sortedModel(model, ns).map(modelId));
      for (const k of KEYS) {
        for (const v of VALUES) {
          const got = store.listByLabel(R, ns, [[k, v]]);
          held.push([got, got.map(recId)]);
          const want = sortedModel(model, ns).filter((o) => o.labels?.[k] === v);
          assert.deepEqual(got.map(recId), want.map(modelId), `${ns ?? '*'} ${k}=${v}`);
        }
      }
    }
  };
  check(); // builds every view and the index while empty
  // Runs of unread changes shorter and (2,500 > the 1,000 after which a view is dropped) longer than the limit.
  for (const [i, op] of ops.entries()) {
    apply(store, model, op);
    if (i === 10 || i === 500 || i === 3000 || i === 3001 || i === 5999) check();
  }
  for (const [a, ids] of held) assert.deepEqual(a.map(recId), ids, 'a handed-out array changed');
});

test('the equality requirements a label index can serve: k=v, k==v, k in (v); not k in (v,w), !=, notin, exists', () => {
  const eq = (text: string) => labelSelectorEqualities(parseLabelSelector(text));
  assert.deepEqual(eq('podset.io/name=web'), [['podset.io/name', 'web']]);
  assert.deepEqual(eq('b==2,a in (1),c in (3,4),d!=5,e notin (6),f,!g,h>1'), [
    ['a', '1'],
    ['b', '2'],
  ]);
  assert.deepEqual(eq('x in (1,2),y'), []);
  assert.deepEqual(eq('k='), [['k', '']]);
});
