// The converge warm-up with a worker that exited: it says so, with the worker's exit and last lines, instead
// of reading the gone worker's metrics as idle and failing later on its missing process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warmEveryWorker } from '../../bench/scenarios/converge/steps.ts';

type WarmWorld = Parameters<typeof warmEveryWorker>[0];
type WarmWorker = Parameters<typeof warmEveryWorker>[1][number];

test('a worker that exited before the warm-up is named, with what describe() says of it', async () => {
  let created = 0;
  const world = {
    metrics: () => Promise.resolve(new Map<string, number>()),
    admin: {
      json: () => {
        created++;
        return Promise.resolve({ items: [] });
      },
    },
    podSetsPath: '/apis/podset.io/v1/namespaces/bench/podsets',
    ns: 'bench',
  } as unknown as WarmWorld;
  const workers = [
    { name: 'worker-0', running: true },
    { name: 'worker-1', running: false },
  ] as unknown as WarmWorker[];
  await assert.rejects(
    warmEveryWorker(world, workers, 4, () => 'worker-1: exited (code 1, signal null)'),
    /worker-1 exited during the warm-up:\nworker-1: exited \(code 1/,
  );
  assert.equal(created, 0, 'no warm-up PodSet is made for a run that cannot be measured');
});
