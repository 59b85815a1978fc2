// A cancelled pass (its job's lock or Redis connection lost, a shutdown) sends no further create batch and
// aborts the creates under way — most still wait in the client (a 429's Retry-After pause holds every
// request of the process; chaos seed 194: a create that was not aborted went out 1.7 s after its reconcile
// was cancelled, beside the next reconcile's) — and reports the pods already made, for the expectations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kube, Pod } from '@podset/kube';
import type { PodManifest } from '@podset/reconcile';
import { executeCreates } from './executor.ts';

const manifest = (i: number) =>
  ({ metadata: { namespace: 'default', generateName: `web-${i}-` } }) as unknown as PodManifest;

/** A Kube whose pod creates wait until the test answers them; it records what each create was given. */
function slowKube() {
  const calls: { opts: unknown; answer: () => void }[] = [];
  let n = 0;
  const kube = {
    pods: {
      create: (_ns: string, _pod: Pod, opts?: unknown) =>
        new Promise<Pod>((resolve) => {
          const name = `web-${++n}`;
          calls.push({ opts, answer: () => resolve({ metadata: { name } } as Pod) });
        }),
    },
  } as unknown as Kube;
  return { kube, calls };
}

test('cancelled mid-batch: the batch is abortable, a pod already made is counted, no further batch is sent', async () => {
  const { kube, calls } = slowKube();
  const cancel = new AbortController();
  const outcome = executeCreates(kube, [1, 2, 3].map(manifest), [1, 2], cancel.signal);
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.length, 1);
  assert.equal(
    (calls[0]!.opts as { signal?: unknown } | undefined)?.signal,
    cancel.signal,
    'a create not yet sent must be abortable',
  );
  // Its answer came before the abort reached it: the pod is made, and must be reported.
  calls[0]!.answer();
  cancel.abort(new Error('lock lost'));
  const o = await outcome;
  assert.deepEqual(
    o.created.map((p) => p.metadata.name),
    ['web-1'],
  );
  assert.equal(o.cancelled, true);
  assert.equal(o.skipped, 2);
  assert.equal(o.failure, undefined);
  assert.equal(calls.length, 1, 'no batch after the cancel');
});

test('cancelled before the first batch: nothing is sent', async () => {
  const { kube, calls } = slowKube();
  const cancel = new AbortController();
  cancel.abort(new Error('shutting down'));
  const o = await executeCreates(kube, [1, 2].map(manifest), [1, 1], cancel.signal);
  assert.equal(calls.length, 0);
  assert.deepEqual(o, { created: [], failure: undefined, skipped: 2, cancelled: true });
});

test('not cancelled: every batch runs and the outcome says so', async () => {
  const { kube, calls } = slowKube();
  const outcome = executeCreates(kube, [1, 2, 3].map(manifest), [1, 2], new AbortController().signal);
  for (let answered = 0; answered < 3;) {
    await new Promise((r) => setImmediate(r));
    while (answered < calls.length) calls[answered++]!.answer();
  }
  const o = await outcome;
  assert.equal(o.created.length, 3);
  assert.equal(o.cancelled, false);
});
