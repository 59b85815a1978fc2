// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it.
//
// Candidates poll the Lease at most every retry period. A lease is free when it has no holder, or when
// its record has not changed for leaseDurationSeconds as measured on the candidate's own clock from
// when it first saw that record (so clocks need not agree). Taking or renewing is a PUT carrying the
// resourceVersion read: of two candidates racing, one gets 409 and stays standby. The leader renews
// every retry period; if it can't renew within the renew deadline (< lease duration) it stops
// leading at once, before anyone else may take over. Leaving on shutdown releases the lease (empty
// holder) so a standby takes over on its next poll instead of waiting out the lease.
//
// Handover bound: a standby sees the dead leader's last record at most one retry period after it was
// written (it polls at most that far apart), and polls again exactly when that record has been unchanged
// for the lease duration, so it holds the lease at most leaseDuration + retryPeriod after the leader's
// last renewal (plus the time of its Lease requests), and never less than leaseDuration after it.
import { schedule, systemClock, type Clock } from '@podset/clock';
import { sleep } from './sleep.ts';
import { errorCode, type LeaseApi } from './kube-api.ts';
import type { Logger } from '@podset/log';
import type { Lease } from '@podset/kube';

export interface LeaderOptions {
  api: LeaseApi;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  /** The leader gives up when it hasn't renewed for this long. Default 2/3 of the lease duration. */
  renewDeadlineMs?: number;
  /** Poll / renew interval. Default 1/7 of the lease duration (client-go's 15 s / 2 s ratio). */
  retryPeriodMs?: number;
  logger: Logger;
  /**
   * The Lease's timestamps and the waits between polls and renewals (a wait ends early when its signal
   * aborts). Default the system clock; expiry and deadlines use its monotonic reading (`elapsed`).
   */
  clock?: Clock;
  random?: () => number;
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  readonly #o: Required<LeaderOptions>;
  #observed: { key: string; at: number } | undefined;
  /** Monotonic ms when the record seen last, held by another, expires (undefined: not held by another). */
  #expiresAt: number | undefined;
  #lease: Lease | undefined;
  #leading = false;
  /** Times this elector became leader / lost leadership (for tests and metrics). */
  readonly stats = { acquired: 0, lost: 0, renewals: 0, conflicts: 0, errors: 0 };

  constructor(options: LeaderOptions) {
    const duration = options.leaseDurationMs;
    this.#o = {
      renewDeadlineMs: Math.round((duration * 2) / 3),
      retryPeriodMs: Math.max(100, Math.round(duration / 7)),
      clock: systemClock,
      random: Math.random,
      ...options,
    };
    if (this.#o.renewDeadlineMs >= duration) throw new Error('renew deadline must be shorter than the lease');
    if (this.#o.retryPeriodMs >= this.#o.renewDeadlineMs) {
      throw new Error('retry period must be shorter than the renew deadline');
    }
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /**
   * Campaigns until `signal` aborts. Each time it becomes leader it calls `lead` with a signal that
   * aborts the moment leadership is lost (or on shutdown), and waits for `lead` to return before
   * campaigning again. On shutdown while leading, releases the lease after `lead` has returned.
   */
  async run(signal: AbortSignal, lead: (leaderSignal: AbortSignal) => Promise<void>): Promise<void> {
    const log = this.#o.logger;
    while (!signal.aborted) {
      // Standby: poll until acquired.
      const acquired = await this.#tryAcquireOrRenew(signal);
      if (!acquired) {
        await sleep(this.#standbyWait(), signal, this.#o.clock);
        continue;
      }
      this.#leading = true;
      this.stats.acquired++;
      log.info({ lease: this.#o.name, identity: this.#o.identity }, 'became leader');
      const leadership = new AbortController();
      const onShutdown = () => leadership.abort(new Error('shutdown'));
      signal.addEventListener('abort', onShutdown, { once: true });
      const work = lead(leadership.signal).catch((err: unknown) => {
        log.error({ err: String(err) }, 'leader work failed; giving up leadership');
        leadership.abort(err);
      });
      try {
        await this.#renewLoop(leadership);
      } catch (err) {
        log.error({ err: String(err) }, 'renewing failed unexpectedly; giving up leadership');
        leadership.abort(err);
      }
      signal.removeEventListener('abort', onShutdown);
      await work;
      this.#leading = false;
      if (signal.aborted) break;
      this.stats.lost++;
      log.warn({ lease: this.#o.name, identity: this.#o.identity }, 'lost leadership; standing by');
      await sleep(this.#o.retryPeriodMs, signal, this.#o.clock);
    }
  }

  /** Renews until leadership is lost or aborted; aborts `leadership` when lost. */
  async #renewLoop(leadership: AbortController): Promise<void> {
    // Deadlines and expiry are measured on the monotonic clock (a wall-clock step must not end or
    // extend a term); the wall clock only writes the Lease's timestamps.
    const mono = () => this.#o.clock.elapsed();
    let lastRenew = mono();
    const deadline = () => lastRenew + this.#o.renewDeadlineMs - mono();
    // A hung renew call must not keep us leading past the deadline: a timer enforces it.
    const onDeadline = () => leadership.abort(new Error('renew deadline passed'));
    let cancelDeadline = schedule(this.#o.clock, deadline(), onDeadline);
    try {
      while (!leadership.signal.aborted) {
        await sleep(this.#o.retryPeriodMs, leadership.signal, this.#o.clock);
        if (leadership.signal.aborted) break;
        const sent = mono();
        const callSignal = AbortSignal.any([
          leadership.signal,
          AbortSignal.timeout(Math.max(1, Math.round(deadline()))),
        ]);
        let renewed = false;
        try {
          renewed = await this.#tryAcquireOrRenew(callSignal);
        } catch {
          renewed = false;
        }
        if (renewed) {
          this.stats.renewals++;
          lastRenew = sent;
          cancelDeadline();
          cancelDeadline = schedule(this.#o.clock, deadline(), onDeadline);
        } else if (this.#heldByOther()) {
          leadership.abort(new Error(`lease taken by ${this.#lease?.spec?.holderIdentity ?? '?'}`));
        }
      }
    } finally {
      cancelDeadline();
    }
  }

  /**
   * Gives the lease up (empty holder) if we hold it, so a standby acquires it on its next poll. A renew
   * cut short by the shutdown may still have landed (our copy's resourceVersion is then stale): on a 409
   * the lease is read again and released if it is still ours.
   */
  async release(): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const lease = this.#lease;
      if (lease?.spec?.holderIdentity !== this.#o.identity) return false;
      const now = this.#o.clock.now();
      try {
        this.#lease = await this.#o.api.replace(
          this.#o.namespace,
          {
            ...lease,
            spec: {
              ...lease.spec,
              holderIdentity: '',
              leaseDurationSeconds: 1,
              renewTime: microTime(now),
              acquireTime: microTime(now),
            },
          },
          AbortSignal.timeout(5000),
        );
        this.#o.logger.info({ lease: this.#o.name, identity: this.#o.identity }, 'released lease');
        return true;
      } catch (err) {
        if (attempt === 0 && errorCode(err) === 409) {
          try {
            this.#lease = await this.#o.api.get(this.#o.namespace, this.#o.name, AbortSignal.timeout(5000));
            continue;
          } catch {
            // fall through to the warning below
          }
        }
        this.#o.logger.warn({ err: String(err) }, 'could not release the lease');
        return false;
      }
    }
    return false;
  }

  #heldByOther(): boolean {
    const holder = this.#lease?.spec?.holderIdentity;
    return holder !== undefined && holder !== null && holder !== '' && holder !== this.#o.identity;
  }

  /**
   * The wait before a standby polls again: a random 80–100 % of the retry period (never more, so the last
   * record of a dead leader is seen at most a retry period after it was written; random, so standbys don't
   * poll in lockstep), and no longer than until the record seen last expires (so the lease is taken the
   * moment it may be).
   */
  #standbyWait(): number {
    const poll = Math.round(this.#o.retryPeriodMs * (0.8 + 0.2 * this.#o.random()));
    const untilExpiry =
      this.#expiresAt === undefined ? Infinity : Math.ceil(this.#expiresAt - this.#o.clock.elapsed());
    return Math.max(0, Math.min(poll, untilExpiry));
  }

  /** One GET and (maybe) one create/PUT. True when we hold the lease afterwards. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { api, namespace, name, identity } = this.#o;
    const now = this.#o.clock.now();
    const durationS = Math.max(1, Math.round(this.#o.leaseDurationMs / 1000));
    this.#expiresAt = undefined;
    let current: Lease | undefined;
    try {
      current = await api.get(namespace, name, signal);
      if (current === undefined) {
        const created = await api.create(
          namespace,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: durationS,
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: 0,
            },
          },
          signal,
        );
        this.#remember(created, this.#o.clock.elapsed());
        return true;
      }
      // Seen once the answer is here (as client-go's observedTime): the record was written before, so a lease
      // is never taken sooner than its duration after its holder's last write, by this clock.
      const seenAt = this.#o.clock.elapsed();
      this.#remember(current, seenAt);
      const spec = current.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      const mine = holder === identity;
      if (!mine && holder !== '') {
        const observedAt = this.#observed?.at ?? seenAt;
        const leaseMs = (spec.leaseDurationSeconds ?? durationS) * 1000;
        if (seenAt < observedAt + leaseMs) {
          this.#expiresAt = observedAt + leaseMs; // held, not expired
          return false;
        }
      }
      const updated = await api.replace(
        namespace,
        {
          ...current,
          spec: {
            ...spec,
            holderIdentity: identity,
            leaseDurationSeconds: durationS,
            renewTime: microTime(now),
            acquireTime: mine ? (spec.acquireTime ?? microTime(now)) : microTime(now),
            leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
          },
        },
        signal,
      );
      this.#remember(updated, this.#o.clock.elapsed());
      if (!mine) this.#o.logger.info({ lease: name, previous: holder || undefined }, 'acquired lease');
      return true;
    } catch (err) {
      if (errorCode(err) === 409) this.stats.conflicts++;
      else {
        this.stats.errors++;
        if (!signal.aborted) this.#o.logger.warn({ err: String(err) }, 'lease request failed');
      }
      return false;
    }
  }

  /** `at`: monotonic ms when this record was seen. */
  #remember(lease: Lease, at: number): void {
    this.#lease = lease;
    const spec = lease.spec ?? {};
    const key = `${spec.holderIdentity ?? ''}|${spec.renewTime ?? ''}|${lease.metadata.resourceVersion ?? ''}`;
    if (this.#observed?.key !== key) this.#observed = { key, at };
  }
}
