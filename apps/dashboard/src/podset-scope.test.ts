import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kube, PodSet } from '@podset/kube';
import { listPodSetsInScope, probePodSets } from './podset-scope.ts';

/** A fake PodSet client that records the namespaces it is asked for. */
function fakeKube(byNamespace: Record<string, string[]>) {
  const asked: (string | undefined)[] = [];
  const items = (ns: string | undefined): PodSet[] =>
    Object.entries(byNamespace)
      .filter(([n]) => ns === undefined || n === ns)
      .flatMap(([n, names]) => names.map((name) => ({ metadata: { namespace: n, name } }) as PodSet));
  const podSets = {
    listAll: (ns: string | undefined) => {
      asked.push(ns);
      return Promise.resolve({ items: items(ns) });
    },
    list: (ns: string | undefined) => {
      asked.push(ns);
      return Promise.resolve({ items: items(ns).slice(0, 1) });
    },
  };
  return { kube: { podSets } as unknown as Pick<Kube, 'podSets'>, asked };
}

test('PodSets are listed cluster-wide without WATCH_NAMESPACES, else in each watched namespace only', async () => {
  const all = fakeKube({ a: ['web'], b: ['db'], c: ['x'] });
  const everywhere = await listPodSetsInScope(all.kube, []);
  assert.deepEqual(
    everywhere.items.map((p) => p.metadata?.name),
    ['web', 'db', 'x'],
  );
  assert.deepEqual(all.asked, [undefined]);

  const scoped = fakeKube({ a: ['web'], b: ['db'], c: ['x'] });
  const some = await listPodSetsInScope(scoped.kube, ['a', 'b']);
  assert.deepEqual(
    some.items.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`),
    ['a/web', 'b/db'],
  );
  assert.deepEqual(scoped.asked, ['a', 'b'], 'no cluster-wide list');

  const clusterProbe = fakeKube({ a: [] });
  await probePodSets(clusterProbe.kube, [], AbortSignal.timeout(1000));
  assert.deepEqual(clusterProbe.asked, [undefined], 'without WATCH_NAMESPACES readiness reads cluster-wide');

  const probe = fakeKube({ a: [] });
  await probePodSets(probe.kube, ['a', 'b'], AbortSignal.timeout(1000));
  assert.deepEqual(probe.asked, ['a', 'b']);
});
