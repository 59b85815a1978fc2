// What one worker pass's planning costs on its own, counted and timed: the calls a pass makes on one PodSet
// read from the projection (deep-frozen there) — revisionsMayBeStale, the template hash the revision marks
// ask for (twice), and reconcile — for a creating pass (10 pods to make) and a steady one (10 ready pods).
// Counts per pass: structuredClone and JSON.stringify calls; then µs per pass.
//   node_modules/.bin/node bench/plan-pass.ts [--passes 20000]
import { parseArgs } from 'node:util';
import { reconcile, revisionsMayBeStale, templateHash, type Pod, type PodSet } from '@podset/reconcile';
import { pod, podSet, T0 } from '../libs/reconcile/test/fixtures.ts';
import { deepFreeze } from '../libs/reconcile/test/freeze.ts';

const { values } = parseArgs({ options: { passes: { type: 'string', default: '20000' } } });
const passes = Number(values.passes);

const tally = { structuredClone: 0, stringify: 0 };
const realClone = globalThis.structuredClone;
globalThis.structuredClone = ((...a: Parameters<typeof structuredClone>) => {
  tally.structuredClone++;
  return realClone(...a);
}) as typeof structuredClone;
const realStringify = JSON.stringify;
JSON.stringify = ((...a: Parameters<typeof JSON.stringify>) => {
  tally.stringify++;
  return realStringify(...a);
}) as typeof JSON.stringify;

function template(): PodSet {
  const ps = podSet({ replicas: 10, generation: 1 });
  ps.spec!.template = {
    metadata: { labels: { app: 'web', tier: 'front' } },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ containerPort: 80 }],
          resources: { requests: { cpu: '10m' } },
        },
      ],
    },
  } as NonNullable<PodSet['spec']>['template'];
  return ps;
}

function pass(ps: PodSet, pods: readonly Pod[]): number {
  revisionsMayBeStale(ps);
  templateHash(ps);
  templateHash(ps);
  return reconcile(ps, pods, T0 + 60_000).creates.length;
}

const creating = deepFreeze(template());
const ready = Array.from({ length: 10 }, (_, i) => pod({ name: `web-${i}`, hash: templateHash(creating) }));
const steady = deepFreeze(template());
const podsReady = deepFreeze(ready);

for (const [name, ps, pods] of [
  ['creating (0 of 10 pods)', creating, []],
  ['steady (10 ready pods)', steady, podsReady],
] as const) {
  for (let i = 0; i < 2000; i++) pass(ps, pods); // warm up
  tally.structuredClone = 0;
  tally.stringify = 0;
  pass(ps, pods);
  const counts = { ...tally };
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < passes; i++) pass(ps, pods);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / passes;
  console.log(
    `${name}: per pass structuredClone ${counts.structuredClone}, JSON.stringify ${counts.stringify}; ${us.toFixed(2)} µs per pass`,
  );
}
