// Property-based tests of rollouts: the real controller, planning with the real planner, against the
// simulated cluster of sim.ts, with template changes at any moment (mid-rollout too), scale changes, pod
// kills and readiness flaps. Every plan is checked against exactly what it was planned from, with
// oracles written from the rollout rules (not from the planner's code); at the end every pod is of the
// newest template.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { getCondition, templateHash } from '@podset/reconcile';
import type { Plan, Pod, PodSet } from '@podset/reconcile';
import { Sim, type Chaos } from './sim.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
const HASH_LABEL = 'podset.io/template-hash';

type IntOrPercent = number | string;
type Strategy =
  | { type: 'Recreate' }
  | { type: 'RollingUpdate'; rollingUpdate: { maxSurge: IntOrPercent; maxUnavailable: IntOrPercent } };

const intOrPercent: fc.Arbitrary<IntOrPercent> = fc.oneof(
  fc.nat(3),
  fc.constantFrom('0%', '10%', '25%', '50%', '100%'),
);
const isZero = (v: IntOrPercent) => v === 0 || v === '0%';
const strategy: fc.Arbitrary<Strategy> = fc.oneof(
  { arbitrary: fc.constant({ type: 'Recreate' as const }), weight: 1 },
  {
    arbitrary: fc
      .record({ maxSurge: intOrPercent, maxUnavailable: intOrPercent })
      .filter((r) => !(isZero(r.maxSurge) && isZero(r.maxUnavailable)))
      .map((rollingUpdate) => ({ type: 'RollingUpdate' as const, rollingUpdate })),
    weight: 3,
  },
);

const chaos: fc.Arbitrary<Chaos> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('template' as const), image: fc.nat(3) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('scale' as const), replicas: fc.nat(7) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('kill' as const), pick: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({ kind: fc.constant('unready' as const), pick: fc.nat(), steps: fc.nat(4) }),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 3 },
);

const scenario = fc.record({
  replicas: fc.integer({ min: 1, max: 7 }),
  seed: fc.integer(),
  strategy,
  minReadySeconds: fc.nat(3),
  chaos: fc.array(chaos, { minLength: 1, maxLength: 30 }),
  burst: fc.integer({ min: 1, max: 5 }),
});

// ---- oracles, from the rules: Deployments' rounding and bounds ----

function bounds(s: Strategy, replicas: number): { maxActive: number; minAvailable: number } {
  if (s.type === 'Recreate') return { maxActive: Infinity, minAvailable: 0 };
  const scale = (v: IntOrPercent, up: boolean) => {
    if (typeof v === 'number') return v;
    const exact = (Number.parseInt(v, 10) * replicas) / 100;
    return up ? Math.ceil(exact) : Math.floor(exact);
  };
  const surge = scale(s.rollingUpdate.maxSurge, true);
  let unavailable = Math.min(scale(s.rollingUpdate.maxUnavailable, false), replicas);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { maxActive: replicas + surge, minAvailable: replicas - unavailable };
}

const isMine = (p: Pod, ps: PodSet) =>
  p.metadata?.ownerReferences?.some((r) => r.controller === true && r.uid === ps.metadata.uid) ?? false;
const isTerminating = (p: Pod) => Boolean(p.metadata?.deletionTimestamp);
const isFinished = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const hashOf = (p: Pod) => p.metadata?.labels?.[HASH_LABEL];
function isAvailable(p: Pod, minReadySeconds: number, now: number): boolean {
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  if (ready === undefined) return false;
  return Date.parse(String(ready.lastTransitionTime)) + minReadySeconds * 1000 <= now;
}

/** The bounds of one plan, given exactly what it was planned from. */
function checkPlan(plan: Plan, ps: PodSet, pods: Pod[], now: number, s: Strategy, minReady: number): void {
  const replicas = ps.spec!.replicas!;
  const hash = templateHash(ps);
  const mine = pods.filter((p) => isMine(p, ps));
  const active = mine.filter((p) => !isTerminating(p) && !isFinished(p));
  const outdated = active.filter((p) => hashOf(p) !== hash);
  const byName = new Map(pods.map((p) => [p.metadata!.name!, p]));
  const deleted = plan.deletes.map((d) => byName.get(d.name)!);
  const { maxActive, minAvailable } = bounds(s, replicas);

  for (const m of plan.creates)
    assert.equal(m.metadata.labels[HASH_LABEL], hash, 'creates the newest template');
  for (const d of plan.deletes) {
    const p = byName.get(d.name)!;
    if (d.reason === 'Outdated') assert.notEqual(hashOf(p), hash, 'Outdated deletes are of an old template');
  }
  if (outdated.length > 0 && s.type === 'RollingUpdate') {
    // surge: creates counted before this pass's deletes, so any execution order keeps it
    if (plan.creates.length > 0)
      assert.ok(
        active.length + plan.creates.length <= maxActive,
        `active ${active.length} + creates ${plan.creates.length} <= ${maxActive}`,
      );
    // availability: never below replicas - maxUnavailable because of us (unless already below)
    const availableBefore = active.filter((p) => isAvailable(p, minReady, now)).length;
    const availableAfter = availableBefore - deleted.filter((p) => isAvailable(p, minReady, now)).length;
    assert.ok(
      availableAfter >= Math.min(availableBefore, minAvailable),
      `available ${availableBefore} → ${availableAfter}, floor ${minAvailable}`,
    );
    // old pods go first: a current pod goes only as surplus
    const currentDeleted = deleted.filter((p) => hashOf(p) === hash && !isFinished(p));
    assert.ok(
      currentDeleted.length <= Math.max(0, active.length - outdated.length - replicas),
      'current-template pods go only as surplus',
    );
  }
  if (s.type === 'Recreate' && plan.creates.length > 0) {
    const old = mine.filter((p) => !isFinished(p) && hashOf(p) !== hash);
    assert.deepEqual(
      old.map((p) => p.metadata?.name),
      [],
      'Recreate creates only once no old pod is left, terminating or not',
    );
  }
}

test('property: rollouts hold both bounds at every step and end with every pod on the newest template', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (sc) => {
      const sim = new Sim(sc.replicas, sc.seed, [], sc.burst);
      sim.podset.spec!.strategy = structuredClone(sc.strategy);
      sim.podset.spec!.minReadySeconds = sc.minReadySeconds;
      const check = async () => {
        const plan = await sim.reconcileOnce();
        assert.ok(plan !== undefined);
        const { pods, podset } = sim.history.at(-1)!;
        checkPlan(plan, podset, pods, sim.now, sc.strategy, sc.minReadySeconds);
      };
      // settle first, so that template changes find pods of an older template
      for (let i = 0; i < 8; i++) {
        await check();
        sim.advance();
      }
      for (const c of sc.chaos) {
        await check();
        sim.advance();
        sim.chaos(c);
      }
      let settled = false;
      for (let i = 0; i < 80 && !settled; i++) {
        await check();
        const plan = sim.history.at(-1)!.plan;
        settled =
          plan.requeue === null &&
          !plan.statusChanged &&
          plan.creates.length === 0 &&
          plan.deletes.length === 0;
        if (!settled) sim.advance();
      }
      assert.ok(settled, 'settles within 80 steps');
      const ps = sim.podset;
      const hash = templateHash(ps);
      const replicas = ps.spec!.replicas!;
      const active = sim.pods.filter((p) => isMine(p, ps) && !isTerminating(p) && !isFinished(p));
      assert.equal(active.length, replicas, 'spec.replicas active pods');
      assert.deepEqual(
        active.filter((p) => hashOf(p) !== hash).map((p) => p.metadata?.name),
        [],
        'every pod on the newest template',
      );
      assert.ok(
        active.every((p) => isAvailable(p, sc.minReadySeconds, sim.now)),
        'all available',
      );
      const st = ps.status!;
      assert.deepEqual(
        [st.updatedReplicas, st.availableReplicas, st.templateHash],
        [replicas, replicas, hash],
        'status says so',
      );
      assert.notEqual(getCondition(st, 'Progressing')?.reason, 'RollingOut');
      assert.equal(getCondition(st, 'Available')?.status, 'True');
    }),
    { numRuns: RUNS },
  );
});
