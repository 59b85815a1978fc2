import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textWithoutManagedFields, withoutManagedFields } from './watch-line.ts';

type Json = Record<string, unknown>;

/** The event as the API server writes it (compact JSON, one line). */
const line = (object: Json, type = 'MODIFIED'): string => JSON.stringify({ type, object });

/** The same event parsed, with object.metadata.managedFields deleted. */
function expectedWithout(text: string): unknown {
  const ev = JSON.parse(text) as { object: { metadata?: Json } };
  if (ev.object.metadata !== undefined) delete ev.object.metadata.managedFields;
  return ev;
}

const managed = [
  {
    manager: 'kubelet',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-12-05T01:23:41Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:status': {
        'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } },
        'f:podIPs': { '.': {}, 'k:{"ip":"10.128.0.2"}': { '.': {}, 'f:ip': {} } },
      },
    },
    subresource: 'status',
  },
];

const pod = (metadata: Json): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

/** Cut, and the cut line parses to the event without the list; returns the cut line. */
function assertCut(text: string): string {
  const cut = withoutManagedFields(text);
  assert.ok(cut.length < text.length, 'the list was cut');
  assert.ok(!cut.includes('"managedFields"'));
  assert.deepEqual(JSON.parse(cut), expectedWithout(text));
  return cut;
}

test('a pod line loses its managedFields and nothing else, wherever the list sits in metadata', () => {
  // Between members (the API server's place: after ownerReferences, before the spec).
  assertCut(line(pod({ name: 'a', namespace: 'ns', managedFields: managed, labels: { x: 'y' } })));
  // The last member of metadata, the first, and the only one.
  assertCut(line(pod({ name: 'a', namespace: 'ns', managedFields: managed })));
  assertCut(line(pod({ managedFields: managed, name: 'a' })));
  assertCut(line(pod({ managedFields: managed })));
  // An empty list.
  assertCut(line(pod({ name: 'a', managedFields: [] })));
});

test('brackets, braces, quotes and backslashes inside strings do not end the scan early', () => {
  const nasty = [
    {
      manager: 'a "quoted" ] } [ { manager\\',
      fieldsV1: { 'f:metadata': { 'f:annotations': { 'k:{"x":"]}"}': {}, 'f:\\"': {}, 'f:\\\\': {} } } },
      time: '\\\\"]',
    },
    { manager: '"managedFields":[' },
  ];
  const text = line(
    pod({
      name: 'a',
      annotations: { note: '"managedFields":[1,2]', path: 'C:\\dir\\', brace: '{"a":[}' },
      managedFields: nasty,
      labels: { 'k]': '[v' },
    }),
  );
  const cut = assertCut(text);
  assert.ok(cut.includes('"note":"\\"managedFields\\":[1,2]"'), 'the annotation is left as it was');
  assert.ok(cut.includes('"path":"C:\\\\dir\\\\"'));
});

test('unicode, in the list and around it, is cut or kept exactly', () => {
  const text = line(
    pod({
      name: 'é-名前',
      annotations: { emoji: '🚀 \u2028 ok' },
      managedFields: [{ manager: 'gérant ✓ 🚀', fieldsV1: { 'f:métadonnées': {} } }],
    }),
  );
  const cut = assertCut(text);
  assert.ok(cut.includes('🚀 \u2028 ok'));
});

test('lines without the list, or with it anywhere but object.metadata, are returned as they are', () => {
  const same = (text: string) => assert.equal(withoutManagedFields(text), text);
  same(line(pod({ name: 'a', namespace: 'ns' })));
  same('{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12"}}}');
  same('{"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old"}}');
  // Elsewhere in the object: a field of the spec, the status, an annotation's value, a nested object.
  same(line({ kind: 'Widget', metadata: { name: 'a' }, spec: { managedFields: managed } }));
  same(line({ kind: 'Pod', metadata: { name: 'a', labels: { managedFields: 'x' } } }));
  same(line({ kind: 'Pod', metadata: { name: 'a', owner: { managedFields: managed } } }));
  same(line({ kind: 'Pod', metadata: { name: 'a', annotations: { a: '"managedFields":[{}]' } } }));
  // At the top of the event, not in its object.
  same(JSON.stringify({ type: 'MODIFIED', managedFields: managed, object: { metadata: { name: 'a' } } }));
  // Not a list: a managedFields that is null.
  same(line(pod({ name: 'a', managedFields: null })));
  // Not compact JSON (the API server writes none): whitespace around the member.
  same(JSON.stringify({ type: 'ADDED', object: pod({ name: 'a', managedFields: managed }) }, null, 1));
});

test('a broken line is never mended: JSON.parse still rejects it, and one broken in the list stays whole', () => {
  const good = line(pod({ name: 'a', managedFields: managed, labels: { x: 'y' } }));
  const inTheList = [
    good.slice(0, good.indexOf('"managedFields"') + 40), // cut off inside the list
    good.replace('"manager":"kubelet"', '"manager":"kubelet'), // a string that never closes
    good.replace('"fieldsType"', '"fieldsType"]'), // a bracket that closes the wrong thing
    good.replace('"subresource":"status"}]', '"subresource":"status"]]'),
  ];
  for (const text of inTheList) {
    assert.equal(withoutManagedFields(text), text, text);
    assert.throws(() => JSON.parse(text) as unknown);
  }
  const elsewhere = [
    good.slice(0, -1) + '\\', // a trailing backslash
    good.replace('"labels":{"x":"y"}', '"labels":{"x":"y"'), // a brace missing after the list
    good.replace('"spec":{', '"spec":{{'),
  ];
  for (const text of elsewhere) assert.throws(() => JSON.parse(withoutManagedFields(text)) as unknown, text);
});

test('what is not checked: the inside of a list whose strings and brackets match is not validated', () => {
  // JSON.parse would reject this line; the cut one parses. The API server's encoder never writes it (and
  // the watcher would not read the list anyway), so the scan stays a scan, not a second parser.
  const text = line(pod({ name: 'a', managedFields: managed })).replace('"manager":"kubelet"', '"manager" 1');
  assert.throws(() => JSON.parse(text) as unknown);
  assert.deepEqual(JSON.parse(withoutManagedFields(text)), expectedWithout(line(pod({ name: 'a' }))));
});

test('the bytes of a line as the splitter gives them: a view into its chunk, of any length, cut as its text is', () => {
  const lines = [
    line(pod({ name: 'é-名前', managedFields: managed, labels: { x: 'y' } })),
    line(pod({ name: 'a', namespace: 'ns' })), // no list: decoded whole
    // Longer than the buffer the parts are joined in at first (64 KiB): it grows.
    line(pod({ name: 'big', annotations: { a: 'x'.repeat(100_000) }, managedFields: managed })),
    // Past the most it keeps (1 MiB): one of its own for this line, the kept one for the next.
    line(pod({ name: 'huge', annotations: { a: 'y'.repeat(1_200_000) }, managedFields: managed })),
    line(pod({ name: 'after-the-big-ones', managedFields: managed })),
  ];
  const chunk = Buffer.from(`{"type":"MODIFIED","object":{}}\n${lines.join('\n')}\n`);
  let start = chunk.indexOf(0x0a) + 1;
  for (const text of lines) {
    const end = chunk.indexOf(0x0a, start);
    const view = chunk.subarray(start, end);
    const cut = textWithoutManagedFields(view);
    assert.equal(cut, withoutManagedFields(text));
    assert.deepEqual(JSON.parse(cut), expectedWithout(text));
    start = end + 1;
  }
  assert.equal(chunk.toString('utf8', 0, 8), '{"type":', 'the chunk itself is left as it was');
});
