import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '@podset/testkit';
import type { ListPage, WatchApi } from './kube-api.ts';
import { silentLogger } from '@podset/log';
import { listPodSetKeys, Resync } from './resync.ts';

function pagedApi(pages: Record<string, ListPage[]>, calls: string[]): WatchApi {
  return {
    list(_resource, namespace, opts) {
      calls.push(`${namespace ?? '*'}:${opts.continue ?? ''}`);
      const list = pages[namespace ?? '*'] ?? [];
      const index = opts.continue === undefined ? 0 : Number(opts.continue);
      return Promise.resolve(list[index] ?? { items: [], metadata: {} });
    },
    watch() {
      throw new Error('not used');
    },
  };
}

const ps = (ns: string, name: string) => ({ metadata: { namespace: ns, name } });

test('listPodSetKeys follows continue tokens across every watched namespace', async () => {
  const calls: string[] = [];
  const api = pagedApi(
    {
      a: [
        { items: [ps('a', 'one'), ps('a', 'two')], metadata: { continue: '1' } },
        { items: [ps('a', 'three')], metadata: { continue: '' } },
      ],
      b: [{ items: [ps('b', 'four')], metadata: {} }],
    },
    calls,
  );
  const keys = await listPodSetKeys(api, ['a', 'b'])(new AbortController().signal);
  assert.deepEqual(keys, ['a/one', 'a/two', 'a/three', 'b/four']);
  assert.deepEqual(calls, ['a:', 'a:1', 'b:']);
});

test('a resync requests every key at bulk priority; a failed one is counted and retried next period', async () => {
  const requested: string[][] = [];
  let fail = true;
  const resync = new Resync({
    periodMs: 20,
    listKeys: () => (fail ? Promise.reject(new Error('api down')) : Promise.resolve(['d/a', 'd/b'])),
    enqueueBulk: (keys) => {
      requested.push([...keys]);
      return Promise.resolve();
    },
    logger: silentLogger,
  });
  const controller = new AbortController();
  const running = resync.run(controller.signal);
  await waitFor('a failed resync', () => resync.stats.failures > 0, { intervalMs: 10 });
  fail = false;
  await waitFor('a resync that runs', () => resync.stats.runs > 0, { intervalMs: 10 });
  controller.abort();
  await running;
  assert.ok(resync.stats.failures >= 1);
  assert.ok(resync.stats.runs >= 1);
  assert.deepEqual(requested[0], ['d/a', 'd/b']);
});
