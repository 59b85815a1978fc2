// What the tests of the fold beside the queue (live-cover, fold-merge) share: a pod event of a PodSet, and a
// worker's take of a key's job.
import assert from 'node:assert/strict';
import type { Job, Worker } from 'bullmq';
import type { FoldItem, ProjectedPod } from '@podset/state';

let rv = 100;

/** A pod event of PodSet `key` (a new pod, or a phase it did not have), each at a newer resourceVersion. */
export function podEvent(key: string, name: string, phase: string): FoldItem & { epoch: number } {
  const [namespace, podset] = key.split('/');
  const object: ProjectedPod = {
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      resourceVersion: String(++rv),
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: podset!, uid: 'ps', controller: true },
      ],
    },
    status: { phase },
  };
  return { key, kind: 'pod', type: 'MODIFIED', object, epoch: 1 };
}

/** Takes jobs with `worker` until the one of `key` is taken (earlier tests leave jobs waiting). */
export async function take(worker: Worker, key: string): Promise<Job> {
  for (;;) {
    const job = (await worker.getNextJob('tok')) as Job | undefined;
    assert.ok(job !== undefined, `a job of ${key} to take`);
    if (job.name === key) return job;
  }
}
