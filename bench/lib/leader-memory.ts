// What the leading watcher keeps per pod, measured in this process: the hold's digest hints and the status
// windows' tallies (apps/watcher) fed the events of `pods` ready pods of 10 a PodSet, the heap used compared
// after a full collection before and after. The RSS ratios of the footprint scenario move with V8's sizing of
// its spaces as much as with what is kept; this figure is what is kept, and moves only when the code does.
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { QuietHold } from '../../apps/watcher/src/hold.ts';
import type { WatchedObject } from '../../apps/watcher/src/keys.ts';
import { StatusWindows } from '../../apps/watcher/src/status-windows.ts';
import type { WatchEvent } from '../../apps/watcher/src/watch-loop.ts';
import { API_VERSION, KIND, NAME_LABEL } from '@podset/reconcile';

const PER_PODSET = 10;

/** A pod as the API server sends it, as far as the memories read it (a generated name, a uid, an owner). */
function pod(i: number, ready: boolean): WatchedObject {
  const podset = `bench-${Math.floor(i / PER_PODSET)}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: 'bench',
      name: `${podset}-${(i * 7919).toString(36).padStart(5, 'x').slice(-5)}${i % PER_PODSET}`,
      uid: randomUUID(),
      labels: { [NAME_LABEL]: podset },
      ownerReferences: [
        { apiVersion: API_VERSION, kind: KIND, name: podset, uid: `uid-${podset}`, controller: true },
      ],
    },
    status: {
      phase: ready ? 'Running' : 'Pending',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Bytes of heap the leader's per-pod memories keep per pod, after each of `pods` pods was ADDED, then Ready. */
export function leaderBytesPerPod(pods: number): number {
  const gc = collector();
  const windows = new StatusWindows({ shortMs: 1000, partialMs: 2000 });
  const hold = new QuietHold(50, () => Promise.resolve());
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const [type, ready] of [
    ['ADDED', false],
    ['MODIFIED', true],
  ] as const) {
    for (let i = 0; i < pods; i++) {
      const object = pod(i, ready);
      hold.quiet({
        stream: 'pods/bench',
        resource: 'pods',
        type,
        object,
        rv: String(i),
      } satisfies WatchEvent);
      windows.seen('pods', type, object);
    }
  }
  gc();
  gc();
  const bytes = process.memoryUsage().heapUsed - before;
  // Both kept to here, so neither memory is collected before the second reading.
  if (windows.size !== pods || hold.heldTotal !== 0)
    throw new Error('leader memory: the pods were not remembered');
  return bytes / pods;
}
