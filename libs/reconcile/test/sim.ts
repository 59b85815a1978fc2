// A simulated cluster for property tests: pods with a lifecycle (Pending → scheduled/Running → Ready,
// graceful termination), an executor that applies plans as the worker does (slow-start creates that
// stop at the first failing batch, UID-precondition deletes, status written when it differs, finalizer),
// and chaos (external deletions, pods finishing, readiness lost, scaling, foreign pods, a pod quota).
import { withFailure, withoutFailure } from '../src/conditions.ts';
import { reconcile } from '../src/plan.ts';
import { slowStartBatches } from '../src/slow-start.ts';
import { statusEqual } from '../src/status.ts';
import type { Plan, Pod, PodSet, ReconcileOptions } from '../src/types.ts';
import { T0, UID } from './fixtures.ts';

/** Deterministic PRNG (mulberry32): the simulation is a function of its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Life {
  scheduleAt: number; // step at which it gets a node and runs
  readyAt: number; // step at which it becomes Ready (if still running)
  goneAt?: number; // terminating: step at which it disappears
}

export type Chaos =
  | { kind: 'kill'; pick: number }
  | { kind: 'finish'; pick: number; failed: boolean }
  | { kind: 'unready'; pick: number; steps: number }
  | { kind: 'scale'; replicas: number }
  | { kind: 'foreign'; orphan: boolean; ready: boolean }
  | { kind: 'quota'; limit: number | null }
  | { kind: 'none' };

export interface InitialPod {
  owner: 'mine' | 'foreign' | 'orphan';
  phase: 'Pending' | 'Running' | 'Unknown' | 'Succeeded' | 'Failed';
  ready: boolean;
  scheduled: boolean;
  deleting: boolean;
  age: number; // seconds before T0
}

export class Sim {
  podset: PodSet;
  pods: Pod[] = [];
  step = 0;
  quota: number | null = null;
  /** Every plan, with the pods it was made from (snapshots). */
  readonly history: { plan: Plan; pods: Pod[]; podset: PodSet }[] = [];
  private readonly life = new Map<string, Life>();
  private readonly rand: () => number;
  private seq = 0;
  readonly burst: number;
  readonly options: ReconcileOptions;

  constructor(
    replicas: number,
    seed: number,
    initial: InitialPod[],
    burst = 4,
    options: ReconcileOptions = {},
  ) {
    this.rand = prng(seed);
    this.burst = burst;
    this.options = options;
    this.podset = {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { name: 'web', namespace: 'default', uid: UID, generation: 1, finalizers: [] },
      spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    };
    for (const p of initial) this.addPod(p);
  }

  get now(): number {
    return T0 + this.step * 1000;
  }

  private uidFor(owner: InitialPod['owner']): string | null {
    return owner === 'mine' ? UID : owner === 'foreign' ? 'old-podset-uid' : null;
  }

  addPod(p: InitialPod): void {
    const id = this.seq++;
    const name = `web-init${id}`;
    const owner = this.uidFor(p.owner);
    const pod: Pod = {
      metadata: {
        name,
        namespace: 'default',
        uid: `uid-${name}`,
        creationTimestamp: new Date(this.now - p.age * 1000).toISOString(),
        labels: { 'podset.io/name': 'web' },
        ...(owner
          ? {
              ownerReferences: [
                { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: owner, controller: true },
              ],
            }
          : {}),
        ...(p.deleting ? { deletionTimestamp: new Date(this.now).toISOString() } : {}),
      },
      spec: p.scheduled ? { nodeName: 'node-1' } : {},
      status: { phase: p.phase, conditions: [{ type: 'Ready', status: p.ready ? 'True' : 'False' }] },
    };
    this.pods.push(pod);
    this.life.set(name, {
      scheduleAt: p.scheduled ? this.step : this.step + this.int(3),
      readyAt: p.ready ? this.step : this.step + this.int(4),
      ...(p.deleting ? { goneAt: this.step + this.int(3) } : {}),
    });
  }

  private int(n: number): number {
    return Math.floor(this.rand() * (n + 1));
  }

  /** One reconcile: plan from the current state, remember it, apply it as the worker would. */
  reconcileOnce(): Plan {
    const podsSnapshot = structuredClone(this.pods);
    const podsetSnapshot = structuredClone(this.podset);
    const plan = reconcile(podsetSnapshot, podsSnapshot, this.now, this.options);
    this.history.push({ plan, pods: podsSnapshot, podset: podsetSnapshot });
    this.apply(plan);
    return plan;
  }

  private apply(plan: Plan): void {
    const md = this.podset.metadata;
    if (plan.finalizer === 'add') md.finalizers = [...(md.finalizers ?? []), 'podset.io/cleanup'];
    const failures: string[] = [];
    // creates, slow start
    let i = 0;
    for (const size of slowStartBatches(plan.creates.length, this.burst)) {
      let failed = false;
      for (const m of plan.creates.slice(i, i + size)) {
        if (this.quota !== null && this.pods.length >= this.quota) {
          failed = true;
          failures.push('exceeded quota');
          continue;
        }
        const name = `${m.metadata.generateName}${(this.seq++).toString(36).padStart(5, '0')}`;
        this.pods.push({
          metadata: {
            ...structuredClone(m.metadata),
            name,
            uid: `uid-${name}`,
            creationTimestamp: new Date(this.now).toISOString(),
          },
          spec: {},
          status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
        });
        const scheduleAt = this.step + this.int(2);
        this.life.set(name, { scheduleAt, readyAt: scheduleAt + this.int(3) });
      }
      i += size;
      if (failed) break;
    }
    // deletes, UID precondition; a missing pod is already gone
    for (const d of plan.deletes) {
      const p = this.pods.find((x) => x.metadata?.name === d.name);
      if (!p || p.metadata?.uid !== d.uid) continue;
      if (!p.metadata.deletionTimestamp) {
        p.metadata.deletionTimestamp = new Date(this.now).toISOString();
        this.life.get(d.name)!.goneAt = this.step + this.int(2);
      }
    }
    // status, as the worker amends it
    if (plan.mode === 'sync') {
      const status =
        failures.length > 0
          ? withFailure(plan.status, 'FailedCreate', failures[0]!, this.now)
          : plan.creates.length + plan.deletes.length > 0
            ? withoutFailure(plan.status)
            : plan.status;
      if (!statusEqual(status, this.podset.status)) this.podset.status = status;
    } else if (plan.finalizer === 'remove') {
      md.finalizers = (md.finalizers ?? []).filter((f) => f !== 'podset.io/cleanup');
    }
  }

  /** Time passes: pods get scheduled, become ready, terminating ones go. */
  advance(): void {
    this.step++;
    this.pods = this.pods.filter((p) => {
      const l = this.life.get(p.metadata!.name!)!;
      return !(p.metadata?.deletionTimestamp && l.goneAt !== undefined && l.goneAt <= this.step);
    });
    for (const p of this.pods) {
      const l = this.life.get(p.metadata!.name!)!;
      const phase = p.status!.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      if (p.metadata?.deletionTimestamp) {
        l.goneAt ??= this.step + this.int(2);
        continue;
      }
      if (l.scheduleAt <= this.step) {
        p.spec = { nodeName: 'node-1' };
        p.status!.phase = 'Running';
      }
      if (p.status!.phase === 'Running' && l.readyAt <= this.step) {
        p.status!.conditions = [{ type: 'Ready', status: 'True' }];
      }
    }
  }

  chaos(c: Chaos): void {
    const live = this.pods.filter((p) => !p.metadata?.deletionTimestamp);
    const pick = <T>(xs: T[], n: number): T | undefined => (xs.length === 0 ? undefined : xs[n % xs.length]);
    switch (c.kind) {
      case 'kill': {
        const p = pick(live, c.pick);
        if (p) this.pods = this.pods.filter((x) => x !== p);
        break;
      }
      case 'finish': {
        const p = pick(
          live.filter((x) => !['Succeeded', 'Failed'].includes(x.status!.phase!)),
          c.pick,
        );
        if (p)
          p.status = {
            phase: c.failed ? 'Failed' : 'Succeeded',
            conditions: [{ type: 'Ready', status: 'False' }],
          };
        break;
      }
      case 'unready': {
        const p = pick(live, c.pick);
        if (p) {
          p.status!.conditions = [{ type: 'Ready', status: 'False' }];
          this.life.get(p.metadata!.name!)!.readyAt = this.step + c.steps;
        }
        break;
      }
      case 'scale':
        this.podset.spec!.replicas = c.replicas;
        this.podset.metadata.generation = (this.podset.metadata.generation ?? 0) + 1;
        break;
      case 'foreign':
        this.addPod({
          owner: c.orphan ? 'orphan' : 'foreign',
          phase: 'Running',
          ready: c.ready,
          scheduled: true,
          deleting: false,
          age: 10,
        });
        break;
      case 'quota':
        this.quota = c.limit;
        break;
      case 'none':
        break;
    }
  }
}
