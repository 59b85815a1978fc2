// Reading the projection's stored entries from an e2e test, as the attacks on it do (projection-forgery,
// api-truth): an entry's parts, and a wait until the projection shows every PodSet at the API's version.
import type { Redis } from 'ioredis';
import type { ProjectionReader } from '@podset/state';
import type { OperatorEnv } from './harness.ts';

/** The stored entry's parts: epoch, rv, tag, payload (the layout libs/state writes). */
export function parts(entry: string): [string, string, string, string] {
  const [epoch, rv, tag] = entry.split('\t', 3) as [string, string, string];
  return [epoch, rv, tag, entry.slice(epoch.length + rv.length + tag.length + 3)];
}

/**
 * Waits until the projection shows each PodSet of `default` named in `names` at the API's version. A
 * PodSet's status write shows there up to the watcher's hold later (it waits to join the next batch, and
 * goes first into it): an entry forged before it is folded is overwritten by the genuine one, in the very
 * batch of the event that triggers the reconcile meant to read it, and the attack tests nothing. Forged once
 * every write is folded, the forgery is what that reconcile reads.
 */
export async function projectionCaughtUp(
  env: OperatorEnv,
  redis: Redis,
  projection: ProjectionReader,
  names: readonly string[],
): Promise<void> {
  await env.waitFor('the projection shows every PodSet at its version', async () => {
    const behind: string[] = [];
    for (const name of names) {
      const stored = await redis.get(projection.keys(`default/${name}`).podset);
      const rv = stored === null ? undefined : parts(stored)[1];
      const current = env.podSet(name)?.metadata.resourceVersion;
      if (rv !== current) behind.push(`${name}: ${rv ?? 'none'} (API ${current ?? 'none'})`);
    }
    return behind;
  });
}
