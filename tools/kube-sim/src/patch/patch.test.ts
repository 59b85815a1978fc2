import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError, type Json, type JsonObject } from '../apimachinery/types.ts';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  createMergePatch,
  formatJsonPointer,
  mergePatch,
  parseJsonPointer,
} from './patch.ts';
import { listStrategy } from './strategic.ts';

/** Freezes a value deeply so that any mutation by the code under test throws (ESM is strict mode). */
function frozen<T extends Json>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

function assertApiError(
  fn: () => unknown,
  code: number,
  reason: string,
  message?: string | RegExp,
): ApiError {
  let caught: ApiError | undefined;
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.reason, reason);
    if (typeof message === 'string') assert.ok(e.message.includes(message), `${e.message} lacks ${message}`);
    else if (message !== undefined) assert.match(e.message, message);
    caught = e;
    return true;
  });
  return caught!;
}

// Arbitrary JSON, with and without nulls.
const key = fc.constantFrom('a', 'b', 'c', 'd', 'x~y', 'p/q', '__proto__', 'constructor');
const scalar = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean());
const { json: jsonNoNull } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(key, tie('json'), { maxKeys: 4, noNullPrototype: true }) as fc.Arbitrary<Json>,
  ),
}));
const objectNoNull = fc.dictionary(key, jsonNoNull, {
  maxKeys: 5,
  noNullPrototype: true,
}) as fc.Arbitrary<JsonObject>;
const { json: jsonAny } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(key, tie('json'), { maxKeys: 4, noNullPrototype: true }) as fc.Arbitrary<Json>,
  ),
}));

// ---------------------------------------------------------------------------------------------------------------

describe('JSON merge patch (RFC 7386)', () => {
  // RFC 7386 appendix A.
  const examples: [Json, Json, Json][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  examples.forEach(([target, patch, result], i) => {
    it(`RFC 7386 example ${i + 1}`, () => {
      assert.deepEqual(mergePatch(frozen(target), frozen(patch)), result);
    });
  });

  it('applyMergePatch needs an object patch (400 Invalid JSON Patch)', () => {
    for (const p of [null, 'x', 1, [1]] as Json[]) {
      assertApiError(() => applyMergePatch({ a: 1 }, p), 400, 'BadRequest', 'Invalid JSON Patch');
    }
    assert.deepEqual(applyMergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }), { a: 1, b: { d: 3 } });
  });

  it('the result shares nothing with the inputs', () => {
    const target = { keep: { deep: [1] }, change: { x: 1 } };
    const patch = { change: { y: [2] } };
    const out = applyMergePatch(target, patch) as { keep: { deep: number[] }; change: { y: number[] } };
    out.keep.deep.push(9);
    out.change.y.push(9);
    assert.deepEqual(target, { keep: { deep: [1] }, change: { x: 1 } });
    assert.deepEqual(patch, { change: { y: [2] } });
  });

  it('`__proto__` is an ordinary member', () => {
    const out = mergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}') as Json) as JsonObject;
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('property: applying createMergePatch(a, b) to a gives b (null-free b)', () => {
    fc.assert(
      fc.property(objectNoNull, objectNoNull, (a, b) => {
        assert.deepEqual(mergePatch(frozen(a), frozen(createMergePatch(a, b))), b);
      }),
    );
  });

  it('property: merge patches are idempotent and never mutate inputs', () => {
    fc.assert(
      fc.property(jsonAny, jsonAny, (a, p) => {
        const once = mergePatch(frozen(a), frozen(p));
        assert.deepEqual(mergePatch(once, p), once);
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------

function jp(doc: Json, ops: Json): Json {
  return applyJsonPatch(frozen(doc), frozen(ops));
}

describe('JSON patch (RFC 6902)', () => {
  it('A.1 add an object member', () => {
    assert.deepEqual(jp({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }]), {
      foo: 'bar',
      baz: 'qux',
    });
  });
  it('A.2 add an array element', () => {
    assert.deepEqual(jp({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }]), {
      foo: ['bar', 'qux', 'baz'],
    });
  });
  it('A.3 remove an object member', () => {
    assert.deepEqual(jp({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }]), { foo: 'bar' });
  });
  it('A.4 remove an array element', () => {
    assert.deepEqual(jp({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }]), {
      foo: ['bar', 'baz'],
    });
  });
  it('A.5 replace a value', () => {
    assert.deepEqual(jp({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }]), {
      baz: 'boo',
      foo: 'bar',
    });
  });
  it('A.6 move a value', () => {
    const doc = { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } };
    assert.deepEqual(jp(doc, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }]), {
      foo: { bar: 'baz' },
      qux: { corge: 'grault', thud: 'fred' },
    });
  });
  it('A.7 move an array element', () => {
    assert.deepEqual(
      jp({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }]),
      {
        foo: ['all', 'cows', 'eat', 'grass'],
      },
    );
  });
  it('A.8 test a value: success', () => {
    const doc = { baz: 'qux', foo: ['a', 2, 'c'] };
    assert.deepEqual(
      jp(doc, [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ]),
      doc,
    );
  });
  it('A.9 test a value: error is 422 Invalid with the API server message', () => {
    const e = assertApiError(
      () => jp({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]),
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
    );
    assert.deepEqual(e.causes, []);
    assert.match(String((e as Error & { cause?: Error }).cause?.message), /testing value \/baz failed/);
  });
  it('A.10 add a nested member object', () => {
    assert.deepEqual(jp({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }]), {
      foo: 'bar',
      child: { grandchild: {} },
    });
  });
  it('A.11 ignore unrecognized elements', () => {
    assert.deepEqual(jp({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }]), {
      foo: 'bar',
      baz: 'qux',
    });
  });
  it('A.12 add to a nonexistent target is 422', () => {
    assertApiError(() => jp({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]), 422, 'Invalid');
  });
  it('A.14 ~ escape ordering', () => {
    const doc = { '/': 9, '~1': 10 };
    assert.deepEqual(jp(doc, [{ op: 'test', path: '/~01', value: 10 }]), doc);
    assert.deepEqual(jp(doc, [{ op: 'replace', path: '/~1', value: 1 }]), { '/': 1, '~1': 10 });
  });
  it('A.15 comparing strings and numbers fails', () => {
    assertApiError(
      () => jp({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]),
      422,
      'Invalid',
    );
  });
  it('A.16 add an array value with `-`', () => {
    assert.deepEqual(jp({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }]), {
      foo: ['bar', ['abc', 'def']],
    });
  });

  it('copy deep-copies; test compares objects structurally', () => {
    const out = jp({ a: { b: [1] } }, [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'add', path: '/c/b/-', value: 2 },
      { op: 'test', path: '/a', value: { b: [1] } },
      { op: 'test', path: '/c', value: { b: [1, 2] } },
    ]);
    assert.deepEqual(out, { a: { b: [1] }, c: { b: [1, 2] } });
  });

  it('operations apply in order on the result of the previous ones (kubectl patch --type=json use)', () => {
    const pod = {
      metadata: { name: 'p', labels: { a: '1' } },
      spec: { containers: [{ name: 'c', image: 'x:1' }] },
    };
    const out = jp(pod, [
      { op: 'replace', path: '/spec/containers/0/image', value: 'x:2' },
      { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      { op: 'remove', path: '/metadata/labels/a' },
    ]);
    assert.deepEqual(out, {
      metadata: { name: 'p', labels: { 'app.kubernetes.io/name': 'web' } },
      spec: { containers: [{ name: 'c', image: 'x:2' }] },
    });
  });

  it('negative indices count from the end (as evanphx/json-patch)', () => {
    assert.deepEqual(jp({ a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }]), { a: [1, 2] });
  });

  it('replace of a missing member of an existing object adds it, as evanphx/json-patch v4 does', () => {
    assert.deepEqual(jp({ a: 1 }, [{ op: 'replace', path: '/missing', value: 2 }]), { a: 1, missing: 2 });
    assert.deepEqual(jp({ o: {} }, [{ op: 'replace', path: '/o/labels', value: { k: 'v' } }]), {
      o: { labels: { k: 'v' } },
    });
  });

  it('failures are 422 Invalid and leave the input untouched', () => {
    const cases: Json[] = [
      [{ op: 'remove', path: '/missing' }],
      [{ op: 'replace', path: '/missing/deeper', value: 1 }],
      [{ op: 'replace', path: '/a/3', value: 1 }],
      [{ op: 'add', path: '/a/5', value: 1 }],
      [{ op: 'remove', path: '/a/3' }],
      [{ op: 'add', path: '/a/x', value: 1 }],
      [{ op: 'move', from: '/o', path: '/o/inner' }],
      [{ op: 'copy', from: '/nope', path: '/x' }],
      [{ op: 'frobnicate', path: '/a' }],
      [{ path: '/a' }],
      [{ op: 'add', value: 1 }],
      [{ op: 'add', path: '/b' }],
      [{ op: 'add', path: 'no-slash', value: 1 }],
      [{ op: 'add', path: '/o/~2', value: 1 }],
      [{ op: 'add', path: '', value: 1 }],
      [null],
      [
        { op: 'add', path: '/ok', value: 1 },
        { op: 'test', path: '/ok', value: 2 },
      ],
    ];
    const doc = frozen({ a: [1, 2, 3], o: { inner: 1 } });
    for (const ops of cases) {
      assertApiError(() => applyJsonPatch(doc, ops), 422, 'Invalid');
    }
    assert.deepEqual(doc, { a: [1, 2, 3], o: { inner: 1 } });
  });

  it('a patch that is not a list of objects is 400 BadRequest', () => {
    assertApiError(() => applyJsonPatch({}, { op: 'add' }), 400, 'BadRequest', 'cannot unmarshal object');
    assertApiError(() => applyJsonPatch({}, null), 400, 'BadRequest');
    assertApiError(() => applyJsonPatch({}, ['add']), 400, 'BadRequest', 'cannot unmarshal string');
    assertApiError(() => applyJsonPatch({}, [[1]]), 400, 'BadRequest');
  });

  it('more than 10,000 operations is 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    assertApiError(() => applyJsonPatch({ a: 1 }, ops), 413, 'RequestEntityTooLarge');
  });

  it('the root path: test works, add/replace/remove are 422 as in the API server', () => {
    assert.deepEqual(jp({ a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }]), { a: 1 });
    for (const op of ['add', 'replace', 'remove']) {
      assertApiError(() => jp({ a: 1 }, [{ op, path: '', value: { b: 2 } }]), 422, 'Invalid');
    }
  });

  it('test: a missing member reads as null, a missing parent fails', () => {
    assert.deepEqual(jp({ a: {} }, [{ op: 'test', path: '/a/b', value: null }]), { a: {} });
    assertApiError(() => jp({ a: {} }, [{ op: 'test', path: '/a/b', value: 1 }]), 422, 'Invalid');
    assertApiError(() => jp({ a: {} }, [{ op: 'test', path: '/x/b', value: null }]), 422, 'Invalid');
  });

  it('JSON pointers: parse and format round-trip', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }), (tokens) => {
        assert.deepEqual(parseJsonPointer(formatJsonPointer(tokens)), tokens);
      }),
    );
  });

  // Every pointer to a value inside a document.
  function pointers(doc: Json, prefix: string[] = []): [string[], Json][] {
    const out: [string[], Json][] = [[prefix, doc]];
    if (Array.isArray(doc)) doc.forEach((v, i) => out.push(...pointers(v, [...prefix, String(i)])));
    else if (doc !== null && typeof doc === 'object') {
      for (const k of Object.keys(doc)) out.push(...pointers(doc[k]!, [...prefix, k]));
    }
    return out;
  }

  it('property: test succeeds on every value in the document; add then remove restores it', () => {
    fc.assert(
      fc.property(objectNoNull, fc.nat(), jsonNoNull, (doc, pick, value) => {
        const all = pointers(doc);
        const [tokens, v] = all[pick % all.length]!;
        const path = formatJsonPointer(tokens);
        assert.deepEqual(jp(doc, [{ op: 'test', path, value: v }]), doc);
        const containers = all.filter(([, c]) => c !== null && typeof c === 'object');
        const [ctokens, container] = containers[pick % containers.length]!;
        const addPath = formatJsonPointer([...ctokens, Array.isArray(container) ? '0' : 'fresh~key']);
        const out = jp(doc, [
          { op: 'add', path: addPath, value },
          { op: 'test', path: addPath, value },
          { op: 'remove', path: addPath },
        ]);
        if (!Array.isArray(container) && Object.hasOwn(container as object, 'fresh~key')) return;
        assert.deepEqual(out, doc);
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------

function smp(original: unknown, patch: unknown, kind = 'Pod'): Json {
  return applyStrategicMergePatch(frozen(original as Json), frozen(patch as Json), kind);
}

const basePod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web',
    labels: { app: 'web', tier: 'fe' },
    finalizers: ['a.io/x', 'b.io/y'],
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'Thing', name: 't', uid: 'u2' },
    ],
  },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'app:1',
        args: ['--a', '--b'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
      { name: 'sidecar', image: 'side:1' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
    tolerations: [{ key: 'k1', operator: 'Exists' }],
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'Initialized', status: 'True' },
    ],
  },
};

describe('strategic merge patch', () => {
  it('maps merge recursively; null deletes; scalars replace (kubectl label/annotate)', () => {
    const out = smp(basePod, {
      metadata: { labels: { tier: null, env: 'prod' }, annotations: { note: 'x' } },
      status: { phase: 'Succeeded' },
    }) as typeof basePod & { metadata: { annotations: Record<string, string> } };
    assert.deepEqual(out.metadata.labels, { app: 'web', env: 'prod' });
    assert.deepEqual(out.metadata.annotations, { note: 'x' });
    assert.equal(out.status.phase, 'Succeeded');
    assert.deepEqual(out.spec, basePod.spec);
  });

  it('containers merge by name: one field changes, the rest stays', () => {
    const out = smp(basePod, {
      spec: { containers: [{ name: 'sidecar', image: 'side:2' }] },
    }) as typeof basePod;
    assert.deepEqual(out.spec.containers[1], { name: 'sidecar', image: 'side:2' });
    assert.deepEqual(out.spec.containers[0], basePod.spec.containers[0]);
  });

  it('a new container is added (patch items first, as Kubernetes orders them)', () => {
    const out = smp(basePod, { spec: { containers: [{ name: 'new', image: 'n:1' }] } }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => c.name),
      ['new', 'app', 'sidecar'],
    );
  });

  it('env by name, ports by containerPort, volumeMounts by mountPath, volumes by name', () => {
    const out = smp(basePod, {
      spec: {
        containers: [
          {
            name: 'app',
            env: [{ name: 'B', value: '3' }],
            ports: [{ containerPort: 80, name: 'http' }],
            volumeMounts: [{ mountPath: '/data', readOnly: true }],
          },
        ],
        volumes: [{ name: 'data', emptyDir: { medium: 'Memory' } }],
      },
    }) as typeof basePod;
    const app = out.spec.containers[0]!;
    assert.deepEqual(app.env, [
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
    ]);
    assert.deepEqual(app.ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
    assert.deepEqual(app.volumeMounts, [{ name: 'data', mountPath: '/data', readOnly: true }]);
    assert.deepEqual(out.spec.volumes, [{ name: 'data', emptyDir: { medium: 'Memory' } }]);
  });

  it('lists without a merge key replace: args, tolerations', () => {
    const out = smp(basePod, {
      spec: {
        containers: [{ name: 'app', args: ['--c'] }],
        tolerations: [{ key: 'k2', operator: 'Exists' }],
      },
    }) as typeof basePod;
    assert.deepEqual(out.spec.containers[0]!.args, ['--c']);
    assert.deepEqual(out.spec.tolerations, [{ key: 'k2', operator: 'Exists' }]);
  });

  it('finalizers merge as a set; $deleteFromPrimitiveList removes', () => {
    let out = smp(basePod, { metadata: { finalizers: ['c.io/z', 'a.io/x'] } }) as typeof basePod;
    assert.deepEqual(out.metadata.finalizers, ['c.io/z', 'a.io/x', 'b.io/y']);
    out = smp(basePod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x'] } }) as typeof basePod;
    assert.deepEqual(out.metadata.finalizers, ['b.io/y']);
    assert.ok(!('$deleteFromPrimitiveList' in out.metadata));
    out = smp(basePod, { metadata: { finalizers: null } }) as typeof basePod;
    assert.ok(!('finalizers' in out.metadata));
  });

  it('ownerReferences merge by uid, conditions by type', () => {
    const out = smp(basePod, {
      metadata: { ownerReferences: [{ uid: 'u2', blockOwnerDeletion: true }] },
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Crash' }] },
    }) as typeof basePod;
    assert.deepEqual(out.metadata.ownerReferences[1], {
      apiVersion: 'v1',
      kind: 'Thing',
      name: 't',
      uid: 'u2',
      blockOwnerDeletion: true,
    });
    assert.deepEqual(out.status.conditions, [
      { type: 'Ready', status: 'False', reason: 'Crash' },
      { type: 'Initialized', status: 'True' },
    ]);
  });

  it('service ports merge by port', () => {
    const svc = {
      kind: 'Service',
      spec: {
        selector: { app: 'web' },
        ports: [
          { port: 80, targetPort: 8080, name: 'http' },
          { port: 443, targetPort: 8443, name: 'https' },
        ],
      },
    };
    const out = smp(svc, { spec: { ports: [{ port: 443, targetPort: 9443 }] } }, 'Service') as typeof svc;
    assert.deepEqual(out.spec.ports, [
      { port: 80, targetPort: 8080, name: 'http' },
      { port: 443, targetPort: 9443, name: 'https' },
    ]);
  });

  it('$patch: delete removes a list item by merge key', () => {
    const out = smp(basePod, {
      spec: {
        containers: [
          { name: 'app', env: [{ name: 'A', $patch: 'delete' }] },
          { name: 'sidecar', $patch: 'delete' },
        ],
      },
    }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => c.name),
      ['app'],
    );
    assert.deepEqual(out.spec.containers[0]!.env, [{ name: 'B', value: '2' }]);
  });

  it('$patch: replace in a list replaces it with the other items', () => {
    const out = smp(basePod, {
      spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'o:1', dropped: null }] },
    }) as typeof basePod;
    assert.deepEqual(out.spec.containers, [{ name: 'only', image: 'o:1' }]);
  });

  it('$patch: replace / delete in a map', () => {
    let out = smp(basePod, { metadata: { labels: { $patch: 'replace', only: 'this' } } }) as typeof basePod;
    assert.deepEqual(out.metadata.labels, { only: 'this' });
    out = smp(basePod, { metadata: { labels: { $patch: 'delete' } } }) as typeof basePod;
    assert.deepEqual(out.metadata.labels, {});
    assertApiError(
      () => smp(basePod, { metadata: { labels: { $patch: 'bogus' } } }),
      400,
      'BadRequest',
      'Unknown patch type',
    );
    assertApiError(
      () => smp(basePod, { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }),
      400,
      'BadRequest',
      'merging lists cannot yet be specified',
    );
  });

  it('$retainKeys clears the keys not listed (deployment strategy switch)', () => {
    const deploy = {
      kind: 'Deployment',
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      },
    };
    const out = smp(
      deploy,
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
      'Deployment',
    ) as typeof deploy;
    assert.deepEqual(out.spec, { replicas: 2, strategy: { type: 'Recreate' } });
    assertApiError(
      () =>
        smp(
          deploy,
          { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 2 } } } },
          'Deployment',
        ),
      400,
      'BadRequest',
      'retainKeys',
    );
  });

  it('$setElementOrder orders the merged list', () => {
    const out = smp(basePod, {
      spec: {
        '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
        containers: [{ name: 'app', image: 'app:2' }],
      },
    }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => [c.name, c.image]),
      [
        ['sidecar', 'side:1'],
        ['app', 'app:2'],
      ],
    );
    const out2 = smp(basePod, {
      metadata: { '$setElementOrder/finalizers': ['b.io/y', 'n.io/new', 'a.io/x'], finalizers: ['n.io/new'] },
    }) as typeof basePod;
    assert.deepEqual(out2.metadata.finalizers, ['b.io/y', 'n.io/new', 'a.io/x']);
    assertApiError(
      () =>
        smp(basePod, {
          spec: {
            '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
            containers: [{ name: 'app' }, { name: 'sidecar' }],
          },
        }),
      400,
      'BadRequest',
      "doesn't match $setElementOrder list",
    );
  });

  it('a kubectl apply three-way patch (image change, env removal, annotation)', () => {
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      spec: {
        replicas: 3,
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1',
                env: [
                  { name: 'KEEP', value: 'a' },
                  { name: 'DROP', value: 'b' },
                ],
                ports: [{ containerPort: 80 }],
              },
            ],
          },
        },
      },
    };
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":1}' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }],
            containers: [
              {
                '$setElementOrder/env': [{ name: 'KEEP' }],
                env: [{ $patch: 'delete', name: 'DROP' }],
                image: 'nginx:2',
                name: 'web',
              },
            ],
          },
        },
      },
    };
    const out = smp(deploy, patch, 'Deployment') as typeof deploy;
    assert.deepEqual(out.spec.template.spec.containers, [
      { name: 'web', image: 'nginx:2', env: [{ name: 'KEEP', value: 'a' }], ports: [{ containerPort: 80 }] },
    ]);
    assert.equal(out.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], '{"new":1}');
    assert.equal(out.spec.replicas, 3);
  });

  it('kubectl apply removing a container and switching a volume source ($retainKeys in a list item)', () => {
    const out = smp(basePod, {
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }],
        containers: [{ $patch: 'delete', name: 'sidecar' }],
        '$setElementOrder/volumes': [{ name: 'data' }],
        volumes: [
          { $retainKeys: ['configMap', 'name'], name: 'data', configMap: { name: 'cm' }, emptyDir: null },
        ],
      },
    }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => c.name),
      ['app'],
    );
    assert.deepEqual(out.spec.volumes, [{ name: 'data', configMap: { name: 'cm' } }]);
  });

  it('values put where nothing was are cleaned of nulls and directives', () => {
    const out = smp(
      { metadata: { name: 'x' } },
      {
        metadata: { labels: { a: '1', b: null } },
        spec: {
          containers: [
            {
              name: 'c',
              env: [
                { name: 'E', $patch: 'delete' },
                { name: 'F', value: 'f' },
              ],
            },
          ],
        },
      },
    ) as JsonObject;
    assert.deepEqual(out, {
      metadata: { name: 'x', labels: { a: '1' } },
      spec: { containers: [{ name: 'c', env: [{ name: 'F', value: 'f' }] }] },
    });
  });

  it('a value of another type replaces the original', () => {
    const out = smp(
      { spec: { x: [1], y: { a: 1 }, z: 'a' } },
      { spec: { x: { b: 2 }, y: 'now', z: [1] } },
    ) as JsonObject;
    assert.deepEqual(out, { spec: { x: { b: 2 }, y: 'now', z: [1] } });
  });

  it('errors: not an object, missing merge key, list of lists', () => {
    assertApiError(() => smp(basePod, [1]), 400, 'BadRequest');
    assertApiError(
      () => smp(basePod, { spec: { containers: [{ image: 'no-name' }] } }),
      400,
      'BadRequest',
      'does not contain declared merge key: name',
    );
    assertApiError(
      () => smp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [['b']] } }),
      422,
      'Invalid',
    );
    assertApiError(
      () => smp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [1] } }),
      400,
      'BadRequest',
    );
  });

  it('listStrategy table', () => {
    assert.deepEqual(listStrategy('Pod', ['spec', 'containers']), { type: 'mergeByKey', key: 'name' });
    assert.deepEqual(listStrategy('Deployment', ['spec', 'template', 'spec', 'initContainers', 'ports']), {
      type: 'mergeByKey',
      key: 'containerPort',
    });
    assert.deepEqual(listStrategy('Service', ['spec', 'ports']), { type: 'mergeByKey', key: 'port' });
    assert.deepEqual(listStrategy('EndpointSlice', ['ports']), { type: 'replace' });
    assert.deepEqual(listStrategy('Namespace', ['spec', 'finalizers']), { type: 'replace' });
    assert.deepEqual(listStrategy('Pod', ['metadata', 'finalizers']), { type: 'mergePrimitives' });
    assert.deepEqual(listStrategy('Pod', ['spec', 'tolerations']), { type: 'replace' });
    assert.deepEqual(listStrategy('Node', ['status', 'addresses']), { type: 'mergeByKey', key: 'type' });
  });

  it('property: on documents without lists it agrees with JSON merge patch', () => {
    const { obj } = fc.letrec<{ obj: Json }>((tie) => ({
      obj: fc.dictionary(
        fc.constantFrom('a', 'b', 'c', 'spec', 'metadata'),
        fc.oneof({ depthSize: 'small' }, scalar, fc.constant(null), tie('obj')),
        { maxKeys: 4, noNullPrototype: true },
      ) as fc.Arbitrary<Json>,
    }));
    fc.assert(
      fc.property(obj, obj, (a, p) => {
        assert.deepEqual(smp(a, p), mergePatch(a, p));
      }),
    );
  });

  it('property: container patches merge by name and are idempotent', () => {
    const container = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd'),
      image: fc.constantFrom('i:1', 'i:2'),
      env: fc.uniqueArray(
        fc.record({ name: fc.constantFrom('X', 'Y', 'Z'), value: fc.constantFrom('1', '2') }),
        {
          selector: (e) => e.name,
          maxLength: 3,
        },
      ),
    });
    const containers = fc.uniqueArray(container, { selector: (c) => c.name, maxLength: 4 });
    fc.assert(
      fc.property(containers, containers, (orig, patchList) => {
        const original = { spec: { containers: orig } } as unknown as Json;
        const patch = { spec: { containers: patchList } } as unknown as Json;
        const once = smp(original, patch) as { spec: { containers: { name: string; image: string }[] } };
        const names = once.spec.containers.map((c) => c.name);
        assert.equal(new Set(names).size, names.length, 'no duplicate names');
        assert.deepEqual(new Set(names), new Set([...orig, ...patchList].map((c) => c.name)));
        for (const pc of patchList) {
          assert.equal(once.spec.containers.find((c) => c.name === pc.name)!.image, pc.image);
        }
        assert.deepEqual(smp(once, patch), once);
      }),
    );
  });
});
