import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HistEvent, Store } from './store.ts';
import type { KubeObject } from '../apimachinery/types.ts';

function cm(name: string, ns = 'default', data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
}

test('one global resourceVersion counter; objects frozen; events in commit order', () => {
  const s = new Store(100);
  const seen: HistEvent[] = [];
  s.onCommit((e) => seen.push(e));
  const a = s.put('configmaps', cm('a'));
  const b = s.put('secrets', { ...cm('b'), kind: 'Secret' });
  const a2 = s.put('configmaps', cm('a', 'default', { x: '1' }));
  assert.deepEqual(
    [a, b, a2].map((o) => o.metadata.resourceVersion),
    ['1', '2', '3'],
  );
  assert.ok(Object.isFrozen(a2.metadata));
  assert.throws(() => {
    (a2.data as Record<string, string>).x = '2';
  });
  const gone = s.remove('configmaps', 'default', 'a');
  assert.equal(gone?.metadata.resourceVersion, '4');
  assert.deepEqual(
    seen.map((e) => `${e.type} ${e.rv}`),
    ['ADDED 1', 'ADDED 2', 'MODIFIED 3', 'DELETED 4'],
  );
  assert.equal(seen[2]?.prev?.obj, a);
  assert.equal(s.get('configmaps', 'default', 'a'), undefined);
});

test('lists are sorted by namespace/name and reads at an older resourceVersion see the old state', () => {
  const s = new Store(100);
  s.put('configmaps', cm('b', 'ns2'));
  s.put('configmaps', cm('z', 'ns1'));
  s.put('configmaps', cm('a', 'ns2'));
  const rv = s.resourceVersion;
  s.put('configmaps', cm('a', 'ns2', { changed: 'yes' }));
  s.remove('configmaps', 'ns1', 'z');
  s.put('configmaps', cm('c', 'ns1'));
  const names = (recs: readonly { obj: KubeObject }[]) =>
    recs.map((r) => `${r.obj.metadata.namespace}/${r.obj.metadata.name}`);
  assert.deepEqual(names(s.list('configmaps')), ['ns1/c', 'ns2/a', 'ns2/b']);
  const old = s.listAt('configmaps', undefined, rv);
  assert.deepEqual(names(old), ['ns1/z', 'ns2/a', 'ns2/b']);
  assert.deepEqual(old[1]?.obj.data, {});
  assert.deepEqual(names(s.listAt('configmaps', 'ns2', rv)), ['ns2/a', 'ns2/b']);
});

test('the history window: resume strictly after an RV, 410 once compacted or trimmed', () => {
  const s = new Store(3);
  for (let i = 0; i < 5; i++) s.put('configmaps', cm(`c${i}`));
  // 5 events, 3 retained: rv 3,4,5; resuming after 2 is fine, after 1 is too old
  assert.deepEqual(
    s.historyEvents(2).map((e) => e.rv),
    [3, 4, 5],
  );
  assert.deepEqual(
    s.historyEvents(4).map((e) => e.rv),
    [5],
  );
  assert.deepEqual(s.historyEvents(5), []);
  assert.throws(
    () => s.historyEvents(1),
    (e: { code?: number }) => e.code === 410,
  );
  assert.throws(
    () => s.listAt('configmaps', undefined, 1),
    (e: { code?: number }) => e.code === 410,
  );
  s.setHistoryLimit(1);
  assert.deepEqual(
    s.historyEvents(4).map((e) => e.rv),
    [5],
  );
  assert.throws(
    () => s.historyEvents(3),
    (e: { code?: number }) => e.code === 410,
  );
  s.compact();
  assert.deepEqual(s.historyEvents(5), []);
  assert.throws(
    () => s.historyEvents(4),
    (e: { code?: number }) => e.code === 410,
  );
  s.put('configmaps', cm('after'));
  assert.deepEqual(
    s.historyEvents(5).map((e) => e.rv),
    [6],
  );
});
