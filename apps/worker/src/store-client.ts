// The worker's client for its per-reconcile reads (the projection, the parked record, expectations).
import type { ClientTuning } from '@podset/redis';

/**
 * A reconcile asks for its state and its parked record in the same tick, and many reconciles run at once:
 * auto-pipelining sends what one tick asks as one write, so Redis reads one request per tick, not one per
 * command. Three tries per command, as every other client of ours outside BullMQ.
 */
export const STORE_CLIENT_TUNING: ClientTuning = { maxRetriesPerRequest: 3, enableAutoPipelining: true };
