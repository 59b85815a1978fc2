// Which watcher leads: the holder of the watcher's leader-election Lease, read from the API. The
// dashboard only reads the Lease; whether it is still held is judged the way a candidate would, from
// renewTime + leaseDurationSeconds (on the dashboard's clock, so a skewed clock can misjudge it).
import { isNotFound, type Kube, type Lease } from '@podset/kube';
import { systemClock, type Clock } from '@podset/clock';

export interface LeaderInfo {
  /** The Lease, `namespace/name`. */
  lease: string;
  /**
   * leading: held and renewed within its duration; expired: held but not renewed in time (the holder
   * is gone or cut off; a standby takes over); released: no holder (a watcher left cleanly); none: no
   * Lease (no watcher has run against this namespace).
   */
  state: 'leading' | 'expired' | 'released' | 'none';
  holder?: string;
  /** Epoch ms of the last renewal. */
  renewedAt?: number;
  /** Epoch ms since the holder leads. */
  acquiredAt?: number;
  leaseDurationSeconds?: number;
  transitions?: number;
}

function time(s: string | null | undefined): number | undefined {
  if (s === undefined || s === null) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

/** What a Lease (or its absence) says about leadership at `now`. Pure: exported for tests. */
export function leaderOf(lease: Lease | undefined, ref: string, now: number): LeaderInfo {
  if (lease === undefined) return { lease: ref, state: 'none' };
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  const renewedAt = time(spec.renewTime);
  const acquiredAt = time(spec.acquireTime);
  const facts = {
    lease: ref,
    ...(renewedAt !== undefined ? { renewedAt } : {}),
    ...(acquiredAt !== undefined ? { acquiredAt } : {}),
    ...(spec.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: spec.leaseDurationSeconds } : {}),
    ...(spec.leaseTransitions !== undefined ? { transitions: spec.leaseTransitions } : {}),
  };
  if (holder === '') return { ...facts, state: 'released' };
  const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
  const fresh = renewedAt !== undefined && now <= renewedAt + durationMs;
  return { ...facts, holder, state: fresh ? 'leading' : 'expired' };
}

export async function readLeader(
  kube: Kube,
  lease: { namespace: string; name: string },
  opts: { clock?: Pick<Clock, 'now'>; signal?: AbortSignal } = {},
): Promise<LeaderInfo> {
  const ref = `${lease.namespace}/${lease.name}`;
  let found: Lease | undefined;
  try {
    found = await kube.leases.get(lease.namespace, lease.name, opts.signal ? { signal: opts.signal } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  return leaderOf(found, ref, (opts.clock ?? systemClock).now());
}
