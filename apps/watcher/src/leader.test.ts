import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { Lease } from '@podset/kube';
import type { LeaseApi } from './kube-api.ts';
import { LeaderElector, microTime } from './leader.ts';
import { silentLogger } from '@podset/log';
import { FakeClock, waitFor } from '@podset/testkit';

class Conflict extends Error {
  readonly code = 409;
}

/** One Lease with resourceVersion-based optimistic concurrency; `down` simulates a partition per caller. */
class MemoryLeases {
  lease: Lease | undefined;
  rv = 0;
  readonly down = new Set<string>();
  writes: { holder: string; transitions: number }[] = [];
  /** Lease reads per caller that reached the API: a barrier for "it has polled (again)". */
  readonly reads = new Map<string, number>();

  api(caller: string): LeaseApi {
    const check = () => {
      if (this.down.has(caller)) return Promise.reject(new Error('connect ECONNREFUSED'));
      return Promise.resolve();
    };
    return {
      get: async () => {
        await check();
        this.reads.set(caller, this.readsBy(caller) + 1);
        return this.lease === undefined ? undefined : structuredClone(this.lease);
      },
      create: async (_ns, lease) => {
        await check();
        if (this.lease !== undefined) throw new Conflict('exists');
        return this.#store(lease);
      },
      replace: async (_ns, lease) => {
        await check();
        if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion)
          throw new Conflict('stale');
        return this.#store(lease);
      },
    };
  }

  #store(lease: Lease): Lease {
    this.lease = structuredClone({
      ...lease,
      metadata: { ...lease.metadata, resourceVersion: String(++this.rv) },
    });
    this.writes.push({
      holder: lease.spec?.holderIdentity ?? '',
      transitions: lease.spec?.leaseTransitions ?? 0,
    });
    return structuredClone(this.lease);
  }

  readsBy(caller: string): number {
    return this.reads.get(caller) ?? 0;
  }

  holder(): string {
    return this.lease?.spec?.holderIdentity ?? '';
  }
}

interface Candidate {
  elector: LeaderElector;
  leading: boolean;
  terms: number;
  stop: () => Promise<void>;
  done: Promise<void>;
}

const running: Candidate[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

function candidate(leases: MemoryLeases, identity: string, leaseDurationMs = 900): Candidate {
  const elector = new LeaderElector({
    api: leases.api(identity),
    namespace: 'default',
    name: 'watcher',
    identity,
    leaseDurationMs,
    renewDeadlineMs: Math.round(leaseDurationMs * 0.6),
    retryPeriodMs: Math.round(leaseDurationMs / 9),
    logger: silentLogger,
  });
  const shutdown = new AbortController();
  const c: Candidate = {
    elector,
    leading: false,
    terms: 0,
    stop: async () => {
      shutdown.abort();
      await c.done;
      await elector.release();
    },
    done: Promise.resolve(),
  };
  c.done = elector.run(shutdown.signal, async (signal) => {
    c.leading = true;
    c.terms++;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    c.leading = false;
  });
  running.push(c);
  return c;
}

test('MicroTime has six fractional digits', () => {
  assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), '2026-01-02T03:04:05.678000Z');
});

test('of two candidates exactly one leads, and keeps leading while it renews', async () => {
  const leases = new MemoryLeases();
  const a = candidate(leases, 'a');
  const b = candidate(leases, 'b');
  await waitFor('a leader', () => a.leading || b.leading);
  const leader = a.leading ? a : b;
  const other = leader === a ? b : a;
  // Over several lease durations (a standby polls 9 times per lease duration): never two leaders.
  let overlap = false;
  const watch = setInterval(() => (overlap ||= a.leading && b.leading), 5);
  try {
    await waitFor(
      'the standby to poll through three lease durations',
      () => leases.readsBy(other === a ? 'a' : 'b') >= 27,
    );
  } finally {
    clearInterval(watch);
  }
  assert.equal(overlap, false, 'two leaders at once');
  assert.ok(leader.leading);
  assert.equal(other.terms, 0);
  assert.equal(leases.holder(), leader === a ? 'a' : 'b');
  assert.ok(leader.elector.stats.renewals > 3);
  const spec = leases.lease?.spec;
  assert.equal(spec?.leaseTransitions, 0);
  assert.match(spec?.renewTime ?? '', /\.\d{6}Z$/);
});

test('a leader that stops releases the lease and the standby takes over with one more transition', async () => {
  const leases = new MemoryLeases();
  const a = candidate(leases, 'a');
  await waitFor('a leads', () => a.leading);
  const b = candidate(leases, 'b');
  await waitFor('b to poll the held lease three times', () => leases.readsBy('b') >= 3);
  assert.equal(b.terms, 0);
  await a.stop();
  running.splice(running.indexOf(a), 1);
  assert.ok(!a.leading);
  await waitFor('b takes over', () => b.leading);
  assert.equal(leases.holder(), 'b');
  assert.equal(leases.lease?.spec?.leaseTransitions, 1);
});

test('a leader cut off from the API stops leading before its lease can be taken', async () => {
  const leases = new MemoryLeases();
  const a = candidate(leases, 'a');
  await waitFor('a leads', () => a.leading);
  const b = candidate(leases, 'b');
  await waitFor('b to poll the held lease', () => leases.readsBy('b') >= 1);
  leases.down.add('a'); // a can no longer renew; b still reaches the API
  let overlap = false;
  const watch = setInterval(() => (overlap ||= a.leading && b.leading), 5);
  try {
    await waitFor('b takes over', () => b.leading);
  } finally {
    clearInterval(watch);
  }
  assert.equal(a.leading, false);
  assert.equal(overlap, false, 'the old leader stopped before the new one started');
  assert.equal(a.elector.stats.lost, 1);
  leases.down.delete('a');
  const readsBefore = leases.readsBy('a');
  await waitFor('a to poll the lease twice once back', () => leases.readsBy('a') >= readsBefore + 2);
  assert.ok(b.leading && !a.leading, 'a stands by once back');
});

test('a candidate that finds a lease held by someone silent takes it after the lease duration', async () => {
  const leases = new MemoryLeases();
  await leases.api('ghost').create('default', {
    metadata: { name: 'watcher', namespace: 'default' },
    spec: {
      holderIdentity: 'ghost',
      leaseDurationSeconds: 1,
      renewTime: microTime(Date.now()),
      leaseTransitions: 4,
    },
  });
  const b = candidate(leases, 'b', 1000);
  await waitFor('b to look at the fresh lease twice', () => leases.readsBy('b') >= 2);
  assert.equal(b.leading, false, 'not before the lease duration');
  await waitFor('b takes over', () => b.leading);
  assert.equal(leases.lease?.spec?.leaseTransitions, 5);
});

test('a renew that landed after we stopped waiting for it does not stop the release (409 → re-read → release)', async () => {
  const leases = new MemoryLeases();
  const a = candidate(leases, 'a');
  await waitFor('a leads', () => a.leading);
  // The server applied a renew whose answer never reached us: the lease is still ours, at a newer RV.
  const current = leases.lease;
  assert.ok(current !== undefined);
  leases.lease = { ...current, metadata: { ...current.metadata, resourceVersion: String(++leases.rv) } };
  await a.stop();
  running.splice(running.indexOf(a), 1);
  assert.equal(leases.holder(), '', 'released');
});

test('after the leader dies, a standby holds the lease within leaseDuration + retryPeriod of its last renewal (fake clock)', async () => {
  // Many deaths at random moments against a standby started at a random moment, with random poll jitter:
  // the takeover never comes before the lease duration has passed since the last renewal, nor later than
  // lease duration + retry period (the bound docs/deployment.md states). Lease requests take no time here.
  const leaseMs = 2000;
  const retryMs = Math.round(leaseMs / 7);
  const seeded = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const worst = { late: 0, early: Infinity };
  for (let run = 1; run <= 200; run++) {
    const random = seeded(run);
    const clock = new FakeClock(0);
    const leases = new MemoryLeases();
    const dead = leases.api('dead');
    const renewals: number[] = [];
    const renew = async () => {
      const lease = leases.lease;
      const spec = { holderIdentity: 'dead', leaseDurationSeconds: leaseMs / 1000, leaseTransitions: 0 };
      if (lease === undefined) await dead.create('default', { metadata: { name: 'watcher' }, spec });
      else await dead.replace('default', { ...lease, spec: { ...lease.spec, ...spec } });
      renewals.push(clock.now());
    };
    // The leader renews every retry period until it is killed, somewhere in its third lease duration.
    const killedAt = 2 * leaseMs + Math.floor(random() * leaseMs);
    for (let t = 0; t < killedAt; t += retryMs) void clock.sleep(t).then(renew);
    const shutdown = new AbortController();
    let acquiredAt: number | undefined;
    const standby = new LeaderElector({
      api: leases.api('standby'),
      namespace: 'default',
      name: 'watcher',
      identity: 'standby',
      leaseDurationMs: leaseMs,
      logger: silentLogger,
      clock,
      random,
    });
    // It starts after the lease exists, at a random moment of the leader's first lease duration.
    const startAt = 1 + Math.floor(random() * leaseMs);
    let done: Promise<void> = Promise.resolve();
    void clock.sleep(startAt).then(() => {
      done = standby.run(shutdown.signal, async (signal) => {
        acquiredAt = clock.now();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      });
    });
    // Each sleeper wakes at its own deadline, so the step only bounds how far a run goes past the takeover.
    while (acquiredAt === undefined) await clock.advance(retryMs);
    shutdown.abort();
    await done;
    const lastRenewal = renewals.at(-1) ?? 0;
    assert.ok(lastRenewal <= killedAt);
    const after = acquiredAt - lastRenewal;
    worst.late = Math.max(worst.late, after);
    worst.early = Math.min(worst.early, after);
    assert.ok(
      after >= leaseMs && after <= leaseMs + retryMs,
      `run ${run}: took over ${after} ms after the last renewal (bound ${leaseMs}–${leaseMs + retryMs} ms)`,
    );
  }
  // The runs reached both ends of the interval: the bound is the elector's, not an accident of the draws.
  assert.ok(worst.late > leaseMs + retryMs * 0.8, `latest takeover ${worst.late} ms`);
  assert.ok(worst.early < leaseMs + retryMs * 0.2, `earliest takeover ${worst.early} ms`);
});
