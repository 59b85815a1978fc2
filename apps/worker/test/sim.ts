// A simulated cluster for property tests of the planner AND the worker that carries out its plans: the
// real controller (createController: slow-start creates that stop at the first failing batch,
// UID-precondition deletes, settle()'s status decision, the finalizer) runs against the in-memory API of
// fake-kube.ts, while this file plays the cluster around it: pods with a lifecycle (Pending →
// scheduled/Running → Ready, graceful termination) and chaos (external deletions, pods finishing,
// readiness lost, scaling, foreign pods, a pod quota).
import type { Pod as WirePod } from '@podset/kube';
import { seededRandom } from '@podset/kube-sim';
import * as planner from '@podset/reconcile';
import type { Plan, Pod, PodSet, ReconcileOptions } from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { createController, ReconcileError, type Controller } from '../src/controller.ts';
import { createEventRecorder } from '../src/events.ts';
import { apiError, fakeKube, type FakeKube } from './fake-kube.ts';

export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const UID = 'podset-uid-1';
const KEY = 'default/web';

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
  /** A new image: a new template (the user's `kubectl patch`). */
  | { kind: 'template'; image: number }
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
  readonly f: FakeKube;
  readonly controller: Controller;
  step = 0;
  quota: number | null = null;
  /** Every plan, with the PodSet and pods it was made from (the controller's own snapshots). */
  readonly history: { plan: Plan; pods: Pod[]; podset: PodSet }[] = [];
  private readonly life = new Map<string, Life>();
  private readonly rand: () => number;
  private seq = 0;
  /** The PodSet as last seen: it stays readable once the API has let it go (finalizer removed). */
  private lastPodSet: PodSet;
  readonly burst: number;
  readonly options: ReconcileOptions;

  constructor(
    replicas: number,
    seed: number,
    initial: InitialPod[],
    burst = 4,
    options: ReconcileOptions = {},
  ) {
    this.rand = seededRandom(seed);
    this.burst = burst;
    this.options = options;
    this.f = fakeKube();
    this.f.gracefulDelete = true;
    this.f.now = () => new Date(this.now);
    this.f.fault = (c) =>
      c.verb === 'create' && c.resource === 'pods' && this.quota !== null && this.f.pods.size >= this.quota
        ? apiError(403, 'Forbidden', 'pods "web-" is forbidden: exceeded quota')
        : undefined;
    const ps: PodSet = {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { name: 'web', namespace: 'default', uid: UID, generation: 1, finalizers: [] },
      spec: { replicas, template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    };
    this.f.bump(ps);
    this.f.podsets.set(KEY, ps);
    this.lastPodSet = ps;
    const log = silentLogger;
    const recording = {
      ...planner,
      reconcile: (podset: PodSet, pods: readonly Pod[], now: Date | number, o?: ReconcileOptions): Plan => {
        const plan = planner.reconcile(podset, pods, now, o);
        this.history.push({ plan, pods: structuredClone([...pods]), podset: structuredClone(podset) });
        return plan;
      },
    };
    this.controller = createController({
      kube: this.f.kube,
      planner: recording,
      events: createEventRecorder({ kube: this.f.kube, log, instance: 'sim' }),
      log,
      clock: { now: () => this.now },
      options: { createBurst: burst, reconcile: options },
    });
    for (const p of initial) this.addPod(p);
  }

  get now(): number {
    return T0 + this.step * 1000;
  }

  /** The PodSet in the API (mutable: chaos and tests change it in place), or as last seen once gone. */
  get podset(): PodSet {
    const stored = this.f.podsets.get(KEY);
    if (stored !== undefined) this.lastPodSet = stored;
    return this.lastPodSet as unknown as PodSet;
  }

  get pods(): Pod[] {
    return [...this.f.pods.values()] as unknown as Pod[];
  }

  private uidFor(owner: InitialPod['owner']): string | null {
    return owner === 'mine' ? UID : owner === 'foreign' ? 'old-podset-uid' : null;
  }

  addPod(p: InitialPod): void {
    const id = this.seq++;
    const name = `web-init${id}`;
    const owner = this.uidFor(p.owner);
    const pod: WirePod = {
      metadata: {
        name,
        namespace: 'default',
        uid: `uid-${name}`,
        creationTimestamp: new Date(this.now - p.age * 1000).toISOString(),
        // Made by this template's operator: labelled with its hash (a pod of another template is outdated).
        // An ownerless one carries another PodSet's name: one with ours would be adopted (claim.ts, tested on
        // kube-sim), and this in-memory API serves no pod patches.
        labels: {
          'podset.io/name': owner === null ? 'web-other' : 'web',
          'podset.io/template-hash': planner.templateHash(this.podset),
        },
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
      status: { phase: p.phase, conditions: [this.readyCondition(p.ready)] },
    } as WirePod;
    this.f.bump(pod);
    this.f.pods.set(`default/${name}`, pod);
    this.life.set(name, {
      scheduleAt: p.scheduled ? this.step : this.step + this.int(3),
      readyAt: p.ready ? this.step : this.step + this.int(4),
      ...(p.deleting ? { goneAt: this.step + this.int(3) } : {}),
    });
  }

  /** The Ready condition as a kubelet writes it: when it last changed is when it became what it is. */
  private readyCondition(ready: boolean): {
    type: 'Ready';
    status: 'True' | 'False';
    lastTransitionTime: string;
  } {
    return {
      type: 'Ready',
      status: ready ? 'True' : 'False',
      lastTransitionTime: new Date(this.now).toISOString(),
    };
  }

  private int(n: number): number {
    return Math.floor(this.rand() * (n + 1));
  }

  /**
   * One reconcile by the real controller; returns the plan it made (undefined when it made none: the
   * PodSet was gone). A failure it reports (a create over the quota) is the queue's to retry: here, the
   * next step's.
   */
  async reconcileOnce(): Promise<Plan | undefined> {
    const before = this.history.length;
    try {
      await this.controller.syncHandler(KEY);
    } catch (err) {
      if (!(err instanceof ReconcileError)) throw err;
    }
    this.track();
    return this.history.length > before ? this.history.at(-1)!.plan : undefined;
  }

  /** Pods the controller created get a lifecycle; pods it deleted, a time to be gone. */
  private track(): void {
    for (const p of this.f.pods.values()) {
      const name = p.metadata.name!;
      let l = this.life.get(name);
      if (l === undefined) {
        const scheduleAt = this.step + this.int(2);
        l = { scheduleAt, readyAt: scheduleAt + this.int(3) };
        this.life.set(name, l);
        p.status = { phase: 'Pending', conditions: [this.readyCondition(false)] };
      }
      if (p.metadata.deletionTimestamp !== undefined && l.goneAt === undefined) {
        l.goneAt = this.step + this.int(2);
      }
    }
  }

  /** Time passes: pods get scheduled, become ready, terminating ones go. */
  advance(): void {
    this.step++;
    for (const [k, p] of this.f.pods) {
      const l = this.life.get(p.metadata.name!)!;
      if (p.metadata.deletionTimestamp && l.goneAt !== undefined && l.goneAt <= this.step)
        this.f.pods.delete(k);
    }
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
      // Only on the change: the condition's lastTransitionTime says since when it is Ready.
      if (p.status!.phase === 'Running' && l.readyAt <= this.step && !planner.isPodReady(p)) {
        p.status!.conditions = [this.readyCondition(true)];
      }
    }
  }

  chaos(c: Chaos): void {
    const live = this.pods.filter((p) => !p.metadata?.deletionTimestamp);
    const pick = <T>(xs: T[], n: number): T | undefined => (xs.length === 0 ? undefined : xs[n % xs.length]);
    switch (c.kind) {
      case 'kill': {
        const p = pick(live, c.pick);
        if (p) this.f.pods.delete(`default/${p.metadata!.name!}`);
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
            conditions: [this.readyCondition(false)],
          };
        break;
      }
      case 'unready': {
        const p = pick(live, c.pick);
        if (p) {
          p.status!.conditions = [this.readyCondition(false)];
          this.life.get(p.metadata!.name!)!.readyAt = this.step + c.steps;
        }
        break;
      }
      case 'scale': {
        const ps = this.f.podsets.get(KEY)!;
        ps.spec = { ...ps.spec, replicas: c.replicas };
        ps.metadata.generation = (ps.metadata.generation ?? 0) + 1;
        this.f.bump(ps);
        break;
      }
      case 'template': {
        const ps = this.f.podsets.get(KEY)!;
        const template = structuredClone(ps.spec!.template!);
        template.spec.containers[0]!.image = `nginx:1.${c.image}`;
        ps.spec = { ...ps.spec, template };
        ps.metadata.generation = (ps.metadata.generation ?? 0) + 1;
        this.f.bump(ps);
        break;
      }
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
