// JSON patch (RFC 6902) as the API server applies it (evanphx/json-patch), and JSON pointers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Json } from '../apimachinery/types.ts';
import { applyJsonPatch, formatJsonPointer, parseJsonPointer } from './patch.ts';
import { assertApiError, frozen, jsonNoNull, objectNoNull } from '../../test/unit-support/patches.ts';

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
