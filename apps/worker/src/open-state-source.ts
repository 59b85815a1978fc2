// The state source chosen once at start-up, from STATE_SOURCE: apart from the interface (state-source.ts),
// which both implementations import, so that neither is imported back by what they implement.
import type { Kube } from '@podset/kube';
import type { RedisClient } from '@podset/redis';
import type { EntryTags, OutOfBoundsValue } from '@podset/state';
import { apiState, readFromApi } from './api-state.ts';
import { projectionState, redisProjection, type RefusedEntry } from './projection-state.ts';
import type { ApiReadReason, StateSource, StateSourceKind } from './state-source.ts';

/**
 * The one place that chooses: at start-up, from STATE_SOURCE. The projection is read only with `tags`
 * (PROJECTION_HMAC_KEY): without a key nothing read from Redis could be checked, so every key is read
 * from the API (the caller says so in its log).
 */
export function openStateSource(
  kind: StateSourceKind,
  deps: {
    kube: Kube;
    redis: RedisClient;
    prefix: string;
    queueName: string;
    tags: EntryTags | undefined;
    refused: (entry: RefusedEntry) => void;
    /** Told of expectations and epoch counters out of bounds (ignored; see out-of-bounds.ts). */
    outOfBounds?: (value: OutOfBoundsValue) => void;
    /** Each API read pair of the projection's source (none are counted for STATE_SOURCE=api). */
    apiRead?: (reason: ApiReadReason) => void;
  },
): StateSource {
  const api = apiState(deps.kube);
  if (kind === 'api' || deps.tags === undefined) return api;
  const counted = deps.apiRead ?? (() => undefined);
  return projectionState(redisProjection({ ...deps, tags: deps.tags }), {
    fallback: (ref, signal) => {
      counted('fallback');
      return api.read(ref, signal);
    },
    // From the API server's watch cache (resourceVersion=0): the projection already showed this worker's
    // own creates and deletes (its expectations were met), and the watch that fed it is served from that
    // cache; docs/architecture.md says what a lagging cache can and cannot cost.
    confirm: (ref, why, signal) => {
      counted(why);
      return readFromApi(deps.kube, ref, 'cached', signal);
    },
    refused: deps.refused,
  });
}
