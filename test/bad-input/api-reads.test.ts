// The reads a reconcile makes of the API (GET of its PodSet, LIST of its pods) answered with JSON cut
// short, with STATE_SOURCE=api, where every reconcile makes them (planning from the projection, a worker
// reads the API only while the projection is not ready, or after a conflict). Each: a clear error naming
// the request, retried, and the PodSet converges.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startBadApi, type BadApi } from './support/bad-api.ts';
import { times } from './support/proxy.ts';

let b: BadApi;
before(async () => {
  b = await startBadApi('bad-api-reads', { STATE_SOURCE: 'api' });
});
after(async () => {
  await b?.close();
});

test('a 200 answer whose JSON is cut in half (GET of a PodSet): a clear error naming the request, retried, converges', async () => {
  b.proxy.rules.push(
    times(1, (r) => r.user === 'worker' && r.method === 'GET' && r.path.endsWith('/podsets/trunc-get'), {
      kind: 'truncate-body',
    }),
  );
  b.create('trunc-get', 2);
  await b.converges('trunc-get');
  assert.equal(b.proxy.fired['truncate-body'], 1);
  const errs = b.logged(b.worker, /trunc-get.*will retry/);
  assert.ok(errs.length >= 1, b.worker.tail(30));
  assert.match(errs[0] as string, /invalid JSON/i);
  assert.match(errs[0] as string, /podsets\/trunc-get/);
  b.running();
});

test('a LIST of pods answered with cut JSON: retried, converges', async () => {
  b.proxy.rules.push(
    times(
      1,
      (r) =>
        r.user === 'worker' &&
        r.path.endsWith('/pods') &&
        (r.query.get('labelSelector') ?? '').includes('trunc-list'),
      { kind: 'truncate-body' },
    ),
  );
  b.create('trunc-list', 2);
  await b.converges('trunc-list');
  assert.ok(b.logged(b.worker, /trunc-list.*invalid JSON/i).length >= 1, b.worker.tail(30));
  b.running();
});
