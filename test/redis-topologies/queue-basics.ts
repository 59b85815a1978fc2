// The queue's basic guarantees, checked through a connector from configuration: many requests for a
// key collapse into one job (merged in Redis by the Lua script), and a worker reconciles each key once.
import assert from 'node:assert/strict';
import {
  ReconcileQueue,
  startReconcileWorker,
  type ReconcileRequest,
  type ReconcileWorker,
} from '@podset/queue';
import { type RedisConnector } from '@podset/redis';
import { waitFor } from '@podset/testkit';

export async function checkQueueBasics(
  connector: RedisConnector,
  opts: { prefix: string; queueName: string },
): Promise<{ queue: ReconcileQueue; worker: ReconcileWorker; seen: ReconcileRequest[] }> {
  const queue = new ReconcileQueue({ connection: connector, ...opts, attempts: 3 });
  const seen: ReconcileRequest[] = [];
  let worker: ReconcileWorker | undefined;
  try {
    // No worker yet: five requests for one key become one job (the waiting job covers the last four).
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(
        await queue.request('default/web', { source: 'bulk', reason: `r${i}`, rv: String(10 + i) }),
      );
    }
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['created', 'covered', 'covered', 'covered', 'covered'],
    );
    assert.equal(new Set(results.map((r) => r.jobId)).size, 1, 'one job id for the key');
    await queue.request('default/api', { source: 'live', reason: 'live event' });
    const counts = await queue.queue.getJobCounts('waiting', 'prioritized', 'delayed');
    assert.equal(counts.waiting! + counts.prioritized! + counts.delayed!, 2, 'two keys, two jobs');

    worker = startReconcileWorker({
      connection: connector,
      ...opts,
      concurrency: 2,
      attempts: 3,
      handler: async (req) => {
        seen.push(req);
      },
    });
    await waitFor('both keys reconciled', async () =>
      (await queue.queue.getCompletedCount()) === 2 ? true : undefined,
    );
    const after = await queue.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed');
    assert.deepEqual(after, { waiting: 0, prioritized: 0, delayed: 0, active: 0, failed: 0 });
    const web = seen.filter((r) => r.key === 'default/web');
    assert.equal(web.length, 1, 'the collapsed key was reconciled once');
    assert.deepEqual(web[0]!.reasons, ['r0', 'r1', 'r2', 'r3', 'r4'], 'every request is in the merged job');
    assert.equal(web[0]!.rv, '14', 'the newest resourceVersion');
    assert.equal(seen.filter((r) => r.key === 'default/api').length, 1);
    return { queue, worker, seen };
  } catch (err) {
    await worker?.close();
    await queue.close();
    throw err;
  }
}
