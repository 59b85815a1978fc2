// What a watch line costs to parse, with and without its object's managedFields (watch-line.ts): the
// events of pods going through kube-sim's kubelet lifecycle (created, bound, ContainerCreating, Running),
// watched as the watcher does, each turned back into its line; then JSON.parse of the lines against
// JSON.parse of the lines cut, in alternating rounds (fresh strings each round, as a socket gives them).
// Prints µs per line for each, the lines' sizes, and the share of the events cut.
//   node_modules/.bin/node bench/watch-line.ts [--pods 200] [--rounds 10]
import { parseArgs } from 'node:util';
import { createKube, loadKubeConfig, withoutManagedFields, type Pod, type WatchEvent } from '@podset/kube';
import { startKubeSim } from '@podset/kube-sim';

const { values } = parseArgs({
  options: { pods: { type: 'string', default: '200' }, rounds: { type: 'string', default: '10' } },
});
const PODS = Number(values.pods);
const ROUNDS = Number(values.rounds);

const sim = await startKubeSim({ controllerOptions: { startupDelayMs: 50, startupJitterMs: 150 } });
const kube = createKube(loadKubeConfig({ kubeconfig: sim.kubeconfigPath }), { qps: 0 });
const start = await kube.pods.list('default');
const lines: string[] = [];
const ac = new AbortController();
const watching = (async () => {
  let running = 0;
  for await (const ev of kube.pods.watch('default', {
    resourceVersion: start.metadata.resourceVersion!,
    signal: ac.signal,
  }) as AsyncIterable<WatchEvent<Pod>>) {
    lines.push(JSON.stringify(ev));
    if (ev.object.status?.phase === 'Running' && ++running === PODS) ac.abort();
  }
})();
for (let i = 0; i < PODS; i++) {
  await kube.pods.create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${i}`, labels: { app: 'bench' } },
    spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] },
  });
}
await watching;
await kube.client.close();
await sim.close();

const cut = lines.filter((l) => withoutManagedFields(l) !== l).length;
const size = (ls: string[]) => Math.round(ls.reduce((n, l) => n + l.length, 0) / ls.length);
let sink = 0;
const time = (mode: 'whole' | 'cut', round: number): number => {
  // A fresh copy of every line: V8 keeps nothing of an earlier parse of the same string.
  const fresh = lines.map((l) => l.replace('"resourceVersion":"', `"resourceVersion":"${round}`));
  const t = performance.now();
  for (const l of fresh) sink += (JSON.parse(mode === 'cut' ? withoutManagedFields(l) : l) as object) ? 1 : 0;
  return (performance.now() - t) * 1000;
};
const totals = { whole: 0, cut: 0 };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 === 0 ? (['whole', 'cut'] as const) : (['cut', 'whole'] as const)) {
    const us = time(mode, r);
    if (r > 0) totals[mode] += us; // the first round warms up
  }
}
const per = (us: number) => (us / (lines.length * (ROUNDS - 1))).toFixed(2);
console.log(
  `${lines.length} watch lines of ${PODS} pods (${(lines.length / PODS).toFixed(2)} per pod), ` +
    `${size(lines)} characters each, ${size(lines.map(withoutManagedFields))} cut; ${cut} cut\n` +
    `  JSON.parse µs per line: whole ${per(totals.whole)}, cut (the scan included) ${per(totals.cut)}` +
    (sink === lines.length * ROUNDS * 2 ? '' : ' (some parse gave no object)'),
);
