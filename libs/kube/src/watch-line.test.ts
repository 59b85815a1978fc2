import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutManagedFields } from './watch-line.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const managedFields: Json = [
  {
    manager: 'kube-sim',
    operation: 'Update',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:status': {
        'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } },
        'f:hostIPs': { 'k:{"ip":"10.0.0.1"}': { 'f:ip': {} } },
      },
    },
    subresource: 'status',
  },
  { manager: 'odd "name" with ] and } and \\ and ,"spec":', operation: 'Apply', fieldsV1: {} },
];

const podEvent = (metadata: Record<string, Json>): Record<string, Json> => ({
  type: 'MODIFIED',
  object: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: { containers: [{ name: 'app', image: 'busybox' }], managedFields: ['not', 'metadata'] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  },
});

/** JSON.parse of `line` with object.metadata.managedFields deleted. */
function expected(line: string): unknown {
  const ev = JSON.parse(line) as { object?: { metadata?: Record<string, unknown> } };
  if (ev.object?.metadata !== undefined) delete ev.object.metadata.managedFields;
  return ev;
}

test('managedFields is cut from the metadata wherever it stands among the members, and only there', () => {
  const meta = { name: 'p', namespace: 'default', labels: { managedFields: '[]' }, uid: 'u' };
  const orders: Record<string, Json>[] = [
    { ...meta, managedFields },
    { managedFields, ...meta },
    { name: 'p', namespace: 'default', managedFields, labels: meta.labels, uid: 'u' },
    { managedFields },
  ];
  for (const metadata of orders) {
    for (const indent of [undefined, 2, '\t']) {
      const line = JSON.stringify(podEvent(metadata), null, indent);
      const cut = withoutManagedFields(line);
      assert.ok(cut.length < line.length, `cut: ${line}`);
      assert.deepEqual(JSON.parse(cut), expected(line));
      // The spec's own "managedFields" stays (deepEqual above: so does the label named so).
      assert.ok(cut.includes('"not"'));
    }
  }
});

test('a line without the member at object.metadata is left as it is', () => {
  const lines = [
    JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }),
    JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, message: '"managedFields":[]' } }),
    JSON.stringify({ type: 'ADDED', object: { metadata: { annotations: { managedFields: '[1]' } } } }),
    JSON.stringify({ type: 'ADDED', object: { status: { managedFields: [1] }, metadata: { name: 'x' } } }),
    JSON.stringify({ type: 'ADDED', managedFields: [], metadata: { managedFields: [] } }),
    JSON.stringify({ metadata: { managedFields: [] }, object: { metadata: { name: 'x' } } }),
    // Not a list, or a list holding lists: not a shape the API server writes, left to JSON.parse.
    JSON.stringify({ type: 'ADDED', object: { metadata: { managedFields: null } } }),
    JSON.stringify({ type: 'ADDED', object: { metadata: { managedFields: [[1], { a: [2] }] } } }),
  ];
  for (const line of lines) assert.equal(withoutManagedFields(line), line);
});

test('a broken line stays broken: JSON.parse reports it as before', () => {
  const line = JSON.stringify(podEvent({ name: 'p', managedFields }));
  for (const broken of [line.slice(0, 40), line.slice(0, line.indexOf('"managedFields"') + 30), `${line}}`]) {
    assert.throws(() => JSON.parse(withoutManagedFields(broken)));
    assert.throws(() => JSON.parse(broken));
  }
});

test('random events: the cut parses as JSON.parse with the member deleted', () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const strings = [
    '',
    'a',
    '"',
    '\\',
    ']',
    '[',
    '}',
    '{',
    ',',
    ':',
    '"managedFields"',
    '\\"]',
    'é\u2028',
    '\u0000',
  ];
  const str = (): string => Array.from({ length: Math.floor(random() * 4) }, () => pick(strings)).join('');
  const value = (depth: number, lists: boolean): Json => {
    const r = random();
    if (depth > 3 || r < 0.3) return pick<Json>([null, true, false, 0, -1.5e3, str()]);
    if (r < 0.65 || !lists) {
      const o: Record<string, Json> = {};
      for (let i = Math.floor(random() * 4); i > 0; i--) o[str()] = value(depth + 1, lists);
      return o;
    }
    return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1, lists));
  };
  let cuts = 0;
  for (let n = 0; n < 2000; n++) {
    const metadata: Record<string, Json> = {};
    for (let i = Math.floor(random() * 4); i > 0; i--) metadata[str()] = value(2, true);
    if (random() < 0.8) {
      metadata.managedFields = Array.from({ length: Math.floor(random() * 3) }, () => value(1, false));
    }
    for (let i = Math.floor(random() * 3); i > 0; i--) metadata[str()] = value(2, true);
    const event = { [pick(['type', 'object', 'x'])]: 'ADDED', object: { metadata, spec: value(1, true) } };
    const line = JSON.stringify(event, null, random() < 0.3 ? 1 : undefined);
    const cut = withoutManagedFields(line);
    if (cut !== line) cuts++;
    assert.deepEqual(JSON.parse(cut), expected(line), line);
  }
  assert.ok(cuts > 1000, `cuts ${cuts}`);
});
