import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cleanTraceparents,
  keyProblem,
  MAX_TRACEPARENTS,
  MalformedRequestError,
  mergeRequests,
  parseReconcileRequest,
  type ReconcileRequest,
} from './payload.ts';

const good: ReconcileRequest = {
  v: 1,
  key: 'default/web',
  source: 'live',
  firstRequestedAt: 1_700_000_000_000,
  dueAt: 1_700_000_000_000,
  rv: '42',
  reasons: ['pod default/web-abc deleted'],
};

test('a valid payload parses to itself', () => {
  assert.deepEqual(parseReconcileRequest(structuredClone(good)), good);
  const minimal = { v: 1, key: 'ns/a.b-c', source: 'bulk', firstRequestedAt: 0, dueAt: 5 };
  assert.deepEqual(parseReconcileRequest(minimal), minimal);
});

test('cjson-style empty reasons ({}) are accepted as none', () => {
  const parsed = parseReconcileRequest({ ...good, reasons: {} });
  assert.equal(parsed.reasons, undefined);
});

test('malformed payloads are rejected with a reason naming the field', () => {
  const cases: [unknown, RegExp][] = [
    [null, /not an object/],
    ['x', /not an object/],
    [[], /not an object/],
    [{ ...good, v: 2 }, /version v=2/],
    [{ ...good, v: undefined }, /version/],
    [{ ...good, key: 'web' }, /namespace\/name/],
    [{ ...good, key: 'a/b/c' }, /namespace\/name/],
    [{ ...good, key: 'Default/web' }, /invalid namespace/],
    [{ ...good, key: 'default/' }, /must be "namespace\/name"/],
    [{ ...good, key: 7 }, /key must be a string/],
    [{ ...good, source: 'resync' }, /source/],
    [{ ...good, firstRequestedAt: '1' }, /firstRequestedAt/],
    [{ ...good, firstRequestedAt: 1.5 }, /firstRequestedAt/],
    [{ ...good, dueAt: -1 }, /dueAt/],
    [{ ...good, reasons: 'x' }, /reasons/],
    [{ ...good, reasons: [1] }, /reasons/],
    [{ ...good, rv: 5 }, /rv/],
    [{ ...good, rv: '' }, /rv/],
  ];
  for (const [data, why] of cases) {
    assert.throws(
      () => parseReconcileRequest(data),
      (err: unknown) => err instanceof MalformedRequestError && why.test(err.message),
      `expected ${JSON.stringify(data)} to fail with ${String(why)}`,
    );
  }
});

test('keyProblem accepts Kubernetes names', () => {
  assert.equal(keyProblem('kube-system/my.podset-1'), undefined);
  assert.match(keyProblem(`a/${'x'.repeat(254)}`) ?? '', /invalid name/);
  assert.match(keyProblem(`${'x'.repeat(64)}/a`) ?? '', /invalid namespace/);
});

test('mergeRequests: live wins, earliest times, max rv, reasons deduplicated and capped', () => {
  const a: ReconcileRequest = { ...good, source: 'bulk', rv: '100', dueAt: 50, firstRequestedAt: 10 };
  const b: ReconcileRequest = {
    ...good,
    source: 'live',
    rv: '99',
    dueAt: 40,
    firstRequestedAt: 20,
    reasons: ['pod default/web-abc deleted', 'resync'],
  };
  const m = mergeRequests(a, b);
  assert.equal(m.source, 'live');
  assert.equal(m.rv, '100');
  assert.equal(m.dueAt, 40);
  assert.equal(m.firstRequestedAt, 10);
  assert.deepEqual(m.reasons, ['pod default/web-abc deleted', 'resync']);
  let acc: ReconcileRequest = { ...good, reasons: [] };
  for (let i = 0; i < 25; i++) acc = mergeRequests(acc, { ...good, reasons: [`r${i}`] });
  assert.deepEqual(
    acc.reasons,
    Array.from({ length: 10 }, (_, i) => `r${i + 15}`),
  );
  assert.equal(mergeRequests({ ...good, source: 'bulk' }, { ...good, source: 'bulk' }).source, 'bulk');
});

test('oversized payloads are rejected: too many or too long reasons, a huge rv (found by the bad-input catalog)', () => {
  const cases: [unknown, RegExp][] = [
    [
      { ...good, reasons: Array.from({ length: 11 }, (_, i) => `r${i}`) },
      /reasons has 11 entries \(oversized/,
    ],
    [{ ...good, reasons: ['ok', 'x'.repeat(201)] }, /reasons\[1\] is too long/],
    [{ ...good, rv: '9'.repeat(257) }, /rv is 257 characters \(oversized/],
  ];
  for (const [data, why] of cases) {
    assert.throws(
      () => parseReconcileRequest(data),
      (err: unknown) => {
        assert.ok(err instanceof MalformedRequestError);
        assert.match(err.message, why);
        return true;
      },
    );
  }
  // The largest payload a producer makes is still accepted.
  const biggest = {
    ...good,
    reasons: Array.from({ length: 10 }, () => 'x'.repeat(200)),
    rv: '9'.repeat(256),
  };
  assert.equal(parseReconcileRequest(biggest).reasons?.length, 10);
});

const tp = (n: number) => `00-${n.toString(16).padStart(32, '0')}-${'1'.repeat(16)}-01`;

test('traceparents: well-formed ones kept (duplicates dropped, at most MAX_TRACEPARENTS); malformed ignored, never fatal', () => {
  const parsed = parseReconcileRequest({ ...good, traceparents: [tp(1), 'nope', tp(1), 7, tp(2)] });
  assert.deepEqual(parsed.traceparents, [tp(1), tp(2)]);
  assert.equal(parseReconcileRequest({ ...good, traceparents: 'x' }).traceparents, undefined);
  assert.equal(parseReconcileRequest({ ...good, traceparents: {} }).traceparents, undefined, "cjson's {}");
  const many = Array.from({ length: MAX_TRACEPARENTS + 5 }, (_, i) => tp(i + 1));
  assert.deepEqual(parseReconcileRequest({ ...good, traceparents: many }).traceparents, many.slice(0, 16));
  assert.deepEqual(cleanTraceparents([`${tp(1)}x`, tp(0xabc).toUpperCase()]), undefined);
});

test('mergeRequests keeps the earliest traceparents, bounded', () => {
  const a = { ...good, traceparents: [tp(1), tp(2)] };
  const b = { ...good, traceparents: [tp(2), tp(3)] };
  assert.deepEqual(mergeRequests(a, b).traceparents, [tp(1), tp(2), tp(3)]);
  assert.equal(mergeRequests(good, good).traceparents, undefined);
  const full = { ...good, traceparents: Array.from({ length: MAX_TRACEPARENTS }, (_, i) => tp(i + 1)) };
  assert.deepEqual(mergeRequests(full, b).traceparents, full.traceparents, 'the first events stay');
});
