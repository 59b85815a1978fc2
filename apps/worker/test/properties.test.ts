// Property-based tests of the planner and of the controller that executes its plans, against a
// simulated cluster (sim.ts: the real controller on an in-memory API).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatTime, getCondition, rankForDeletion, reconcile } from '@podset/reconcile';
import type { Plan, Pod, PodSet } from '@podset/reconcile';
import { deepFreeze } from '../../../libs/reconcile/test/freeze.ts';
import { Sim, UID, type Chaos, type InitialPod } from './sim.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);

// ---- generators ----

const initialPod: fc.Arbitrary<InitialPod> = fc.record({
  owner: fc.constantFrom('mine', 'mine', 'mine', 'foreign', 'orphan'),
  phase: fc.constantFrom('Pending', 'Running', 'Running', 'Unknown', 'Succeeded', 'Failed'),
  ready: fc.boolean(),
  scheduled: fc.boolean(),
  deleting: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
  age: fc.nat(1000),
});

const chaos: fc.Arbitrary<Chaos> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('kill' as const), pick: fc.nat() }), weight: 3 },
  {
    arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), failed: fc.boolean() }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('unready' as const), pick: fc.nat(), steps: fc.nat(4) }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('scale' as const), replicas: fc.nat(8) }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('foreign' as const),
      orphan: fc.boolean(),
      ready: fc.boolean(),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('quota' as const),
      limit: fc.option(fc.nat(12), { nil: null }),
    }),
    weight: 1,
  },
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 2 },
);

const scenario = fc.record({
  replicas: fc.nat(8),
  seed: fc.integer(),
  initial: fc.array(initialPod, { maxLength: 14 }),
  chaos: fc.array(chaos, { maxLength: 25 }),
  burst: fc.integer({ min: 1, max: 5 }),
  keep: fc.nat(3),
  maxCreates: fc.integer({ min: 1, max: 12 }),
  maxDeletes: fc.integer({ min: 1, max: 12 }),
});

interface Limits {
  keep: number;
  maxCreates: number;
  maxDeletes: number;
}

// ---- independent oracles (written from the spec, not from the implementation) ----

const isControlled = (p: Pod, ps: PodSet) =>
  p.metadata?.ownerReferences?.some(
    (r) => r.controller === true && r.kind === 'PodSet' && r.uid === ps.metadata.uid,
  ) ?? false;
const isTerminating = (p: Pod) => Boolean(p.metadata?.deletionTimestamp);
const isFinished = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const isReady = (p: Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const activeOf = (ps: PodSet, pods: Pod[]) =>
  pods.filter((p) => isControlled(p, ps) && !isTerminating(p) && !isFinished(p));

/** The spec's ranking as a tuple: smaller goes first. */
function rankKey(p: Pod): number[] {
  const phase = p.status?.phase === 'Running' ? 2 : p.status?.phase === 'Unknown' ? 1 : 0;
  const created = Date.parse(String(p.metadata?.creationTimestamp));
  return [p.spec?.nodeName ? 1 : 0, phase, isReady(p) ? 1 : 0, -created];
}
function keyLE(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return true;
}

/** Every property that must hold of one plan, given exactly what it was planned from. */
function checkPlan(plan: Plan, ps: PodSet, pods: Pod[], now: number, limits: Limits): void {
  const { keep, maxCreates, maxDeletes } = limits;
  const byName = new Map(pods.map((p) => [p.metadata!.name!, p]));
  const desired = ps.spec?.replicas ?? 1;
  const active = activeOf(ps, pods);
  const finished = pods.filter((p) => isControlled(p, ps) && !isTerminating(p) && isFinished(p));

  // never touches a pod it doesn't control, nor one already terminating; UID matches
  for (const d of plan.deletes) {
    const p = byName.get(d.name);
    assert.ok(p, `deletes an existing pod ${d.name}`);
    assert.ok(isControlled(p, ps), `never deletes a pod it doesn't control: ${d.name}`);
    assert.ok(!isTerminating(p), `never re-deletes a terminating pod: ${d.name}`);
    assert.equal(d.uid, p.metadata?.uid, 'UID precondition is the pod UID');
  }
  assert.equal(new Set(plan.deletes.map((d) => d.name)).size, plan.deletes.length, 'no pod deleted twice');

  // never plans more creates than missing; creates exactly the missing (below the cap)
  const missing = Math.max(0, desired - active.length);
  assert.ok(plan.creates.length <= missing, `creates ${plan.creates.length} <= missing ${missing}`);
  assert.equal(plan.creates.length, Math.min(missing, maxCreates), 'creates the missing, up to the cap');
  for (const m of plan.creates) {
    assert.equal(m.metadata.ownerReferences[0]?.uid, UID);
    assert.equal(m.metadata.ownerReferences[0]?.controller, true);
    assert.equal(m.metadata.labels['podset.io/name'], 'web');
  }

  // deletion order: surplus = the worst active pods, in rank order; finished beyond retention
  const surplus = plan.deletes.filter((d) => d.reason === 'Surplus').map((d) => byName.get(d.name)!);
  const excess = Math.max(0, active.length - desired);
  assert.equal(surplus.length, Math.min(excess, maxDeletes));
  assert.ok(plan.deletes.length <= maxDeletes, 'deletes capped');
  assert.ok(!(surplus.length > 0 && plan.creates.length > 0), 'never both scales up and down');
  for (let i = 1; i < surplus.length; i++)
    assert.ok(keyLE(rankKey(surplus[i - 1]!), rankKey(surplus[i]!)), 'surplus deletes are in rank order');
  const kept = active.filter((p) => !surplus.includes(p));
  for (const s of surplus)
    for (const k of kept)
      assert.ok(keyLE(rankKey(s), rankKey(k)), `${s.metadata?.name} goes before ${k.metadata?.name}`);
  const finishedDeletes = plan.deletes.filter((d) => d.reason === 'Finished').map((d) => byName.get(d.name)!);
  assert.ok(finishedDeletes.every(isFinished), 'Finished deletes are finished pods');
  assert.equal(
    finishedDeletes.length,
    Math.min(Math.max(0, finished.length - keep), maxDeletes - surplus.length),
    'finished pods beyond retention go',
  );
  const capped =
    plan.creates.length < missing ||
    surplus.length < excess ||
    finishedDeletes.length < Math.max(0, finished.length - keep);
  if (capped)
    assert.deepEqual(plan.requeue, { afterMs: 0, reason: 'MoreWork' }, 'capped: look again at once');
  assert.ok(plan.deletes.every((d) => d.reason !== 'Cleanup'));

  // status consistent with the pods as they are once the plan's creates and deletes went through
  const staying = active.filter((p) => !surplus.includes(p));
  assert.equal(plan.status.replicas, staying.length + plan.creates.length);
  assert.equal(plan.status.readyReplicas, staying.filter(isReady).length);
  assert.deepEqual(plan.status.podNames, staying.map((p) => p.metadata!.name!).sort());
  assert.equal(plan.status.selector, 'podset.io/name=web');
  assert.equal(plan.status.observedGeneration, ps.metadata.generation);
  const available = getCondition(plan.status, 'Available');
  // As Deployments: enough pods that no more may go, replicas - maxUnavailable (25% by default, rounded down).
  const minimumAvailable = desired - Math.floor(desired / 4);
  assert.equal(available?.status, staying.filter(isReady).length >= minimumAvailable ? 'True' : 'False');
  for (const c of plan.status.conditions ?? []) {
    const prev = getCondition(ps.status, c.type);
    if (prev && prev.status === c.status) assert.equal(c.lastTransitionTime, prev.lastTransitionTime);
    else
      assert.equal(c.lastTransitionTime, formatTime(now), `${c.type} changed status: transition time is now`);
  }
  assert.equal(
    plan.statusChanged,
    JSON.stringify(norm(plan.status)) !== JSON.stringify(norm(ps.status ?? {})),
  );

  // requeue: none exactly when settled
  const settled = plan.creates.length === 0 && plan.deletes.length === 0 && active.every(isReady);
  assert.equal(plan.requeue === null, settled, 'requeue unless settled');

  // idempotent and pure: the same input (frozen) gives the same plan
  assert.deepEqual(
    reconcile(deepFreeze(structuredClone(ps)), deepFreeze(structuredClone(pods)), now, {
      finishedPodsToKeep: keep,
      maxCreatesPerPass: maxCreates,
      maxDeletesPerPass: maxDeletes,
    }),
    plan,
  );
}

function norm(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(norm);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, norm((v as Record<string, unknown>)[k])]),
    );
  return v;
}

test('property: from any start, through chaos, plans converge to spec.replicas ready pods and stay safe', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      const options = {
        finishedPodsToKeep: s.keep,
        maxCreatesPerPass: s.maxCreates,
        maxDeletesPerPass: s.maxDeletes,
      };
      const sim = new Sim(s.replicas, s.seed, s.initial, s.burst, options);
      const foreignBefore = () =>
        sim.pods
          .filter((p) => !isControlled(p, sim.podset))
          .map((p) => JSON.stringify(p))
          .sort();
      const check = async () => {
        const foreign = foreignBefore();
        const plan = await sim.reconcileOnce();
        assert.ok(plan !== undefined, 'the PodSet exists: every pass plans');
        const { pods, podset } = sim.history.at(-1)!;
        checkPlan(plan, podset, pods, sim.now, s);
        assert.deepEqual(foreignBefore(), foreign, 'foreign pods untouched by applying the plan');
      };
      for (const c of s.chaos) {
        await check();
        sim.advance();
        sim.chaos(c);
      }
      // chaos over (quota lifted): converge
      sim.quota = null;
      let settledAt = -1;
      for (let i = 0; i < 40; i++) {
        await check();
        const plan = sim.history.at(-1)!.plan;
        if (
          plan.requeue === null &&
          !plan.statusChanged &&
          plan.creates.length === 0 &&
          plan.deletes.length === 0
        ) {
          settledAt = i;
          break;
        }
        sim.advance();
      }
      assert.ok(settledAt >= 0, 'settles within 40 steps');
      const desired = sim.podset.spec!.replicas!;
      const active = activeOf(sim.podset, sim.pods);
      assert.equal(active.length, desired, 'active pods == spec.replicas');
      assert.ok(active.every(isReady), 'all ready');
      const st = sim.podset.status!;
      assert.equal(st.replicas, desired);
      assert.equal(st.readyReplicas, desired);
      assert.deepEqual(st.podNames, active.map((p) => p.metadata!.name!).sort());
      assert.equal(getCondition(st, 'Available')?.status, 'True');
      assert.deepEqual(
        [getCondition(st, 'Progressing')?.status, getCondition(st, 'Progressing')?.reason],
        ['True', 'PodSetAvailable'],
      );
      assert.equal(getCondition(st, 'ReplicaFailure'), undefined, 'a lifted quota clears ReplicaFailure');
      assert.deepEqual(sim.podset.metadata.finalizers, ['podset.io/cleanup']);
      // settled means stable: planning again changes nothing
      const again = reconcile(sim.podset, sim.pods, sim.now + 60_000, options);
      assert.deepEqual(
        [again.creates, again.deletes, again.statusChanged, again.requeue],
        [[], [], false, null],
      );
    }),
    { numRuns: RUNS },
  );
});

test('property: a deleted PodSet removes all its pods, never a foreign one, then its finalizer', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.nat(6),
      fc.integer(),
      fc.array(initialPod, { maxLength: 14 }),
      fc.integer({ min: 1, max: 20 }),
      async (replicas, seed, initial, maxDeletes) => {
        const sim = new Sim(replicas, seed, initial, 3, { maxDeletesPerPass: maxDeletes });
        sim.podset.metadata.finalizers = ['podset.io/cleanup'];
        for (let i = 0; i < 3; i++) {
          await sim.reconcileOnce();
          sim.advance();
        }
        const foreign = sim.pods.filter((p) => !isControlled(p, sim.podset)).map((p) => p.metadata!.name!);
        sim.podset.metadata.deletionTimestamp = new Date(sim.now).toISOString();
        for (let i = 0; i < 30 && (sim.podset.metadata.finalizers ?? []).length > 0; i++) {
          const plan = await sim.reconcileOnce();
          assert.ok(plan !== undefined);
          const { pods, podset } = sim.history.at(-1)!;
          assert.equal(plan.mode, 'cleanup');
          assert.deepEqual(plan.creates, []);
          assert.equal(plan.statusChanged, false);
          for (const d of plan.deletes) {
            const p = pods.find((x) => x.metadata?.name === d.name)!;
            assert.ok(isControlled(p, podset) && !isTerminating(p));
          }
          if (plan.finalizer === 'remove') {
            const rest = pods.filter((p) => isControlled(p, podset) && !isTerminating(p));
            assert.equal(plan.deletes.length, rest.length, 'the finalizer goes only with the last deletes');
          }
          sim.advance();
        }
        assert.deepEqual(sim.podset.metadata.finalizers, [], 'finalizer removed');
        for (let i = 0; i < 5; i++) sim.advance();
        assert.deepEqual(
          sim.pods.map((p) => p.metadata!.name!).sort(),
          [...foreign].sort(),
          'only foreign pods remain',
        );
      },
    ),
    { numRuns: RUNS },
  );
});

test('property: rankForDeletion agrees with the spec ranking on any pods', () => {
  fc.assert(
    fc.property(fc.array(initialPod, { maxLength: 20 }), fc.integer(), (initial, seed) => {
      const sim = new Sim(0, seed, initial);
      const ranked = rankForDeletion(sim.pods);
      for (let i = 1; i < ranked.length; i++) assert.ok(keyLE(rankKey(ranked[i - 1]!), rankKey(ranked[i]!)));
      assert.deepEqual(rankForDeletion([...sim.pods].reverse()), ranked, 'independent of input order');
    }),
    { numRuns: RUNS },
  );
});
