// The kube-sim benchmark's "label LIST under writes": the operator's pattern, a LIST of one PodSet's pods by
// label between pod writes, and the server CPU each LIST costs.
import { cpuSecondsOf } from '../lib/figures.ts';
import { LABEL_NS, type Config } from './config.ts';
import { podBody } from './phases.ts';
import { expectOk, type Client, type Reply, type Server } from './server.ts';

/**
 * "Label LIST under writes": --label-pods pods in --label-groups groups (label podset.io/name), then
 * --label-iterations rounds of one pod write (alternately a create into the group and a merge patch of one of
 * its pods) followed by one `LIST ?labelSelector=podset.io/name=<group>`, one request at a time over one
 * keep-alive connection. A second pass does the same writes without the LISTs, so that the server CPU per
 * LIST is the difference of the two passes.
 */
export async function labelListUnderWrites(cfg: Config, server: Server, client: Client) {
  const pid = server.proc.pid!;
  const base = `/api/v1/namespaces/${LABEL_NS}/pods`;
  await expectOk(
    client.call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: LABEL_NS },
    }),
    'namespace',
  );
  const group = (i: number): string => `ps-${i % cfg.labelGroups}`;
  const labelPod = (name: string, g: string) => {
    const body = podBody(0);
    return { ...body, metadata: { name, labels: { 'podset.io/name': g, app: 'bench' } } };
  };
  let next = 0;
  const creator = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= cfg.labelPods) return;
      await expectOk(client.call('POST', base, labelPod(`lbl-${i}`, group(i))), `create pod lbl-${i}`);
    }
  };
  await Promise.all(Array.from({ length: cfg.clients }, creator));

  const perGroup = Math.floor(cfg.labelPods / cfg.labelGroups); // every group has at least this many pods
  let created = 0;
  const write = (k: number, pass: string): Promise<Reply> => {
    const g = k % cfg.labelGroups;
    if (k % 2 === 0) {
      const name = `lbl-${pass}-${created++}`;
      return expectOk(client.call('POST', base, labelPod(name, group(g))), `create ${name}`);
    }
    const name = `lbl-${g + cfg.labelGroups * (k % perGroup)}`;
    return expectOk(
      client.call(
        'PATCH',
        `${base}/${name}`,
        { metadata: { annotations: { 'bench.example.com/round': `${pass}-${k}` } } },
        'application/merge-patch+json',
      ),
      `patch ${name}`,
    );
  };
  // Pass 1: write + LIST.
  let items = 0;
  const cpu0 = cpuSecondsOf(pid);
  const t0 = performance.now();
  for (let k = 0; k < cfg.labelIterations; k++) {
    await write(k, 'a');
    const sel = encodeURIComponent(`podset.io/name=${group(k % cfg.labelGroups)}`);
    const reply = await expectOk(client.call('GET', `${base}?labelSelector=${sel}`), 'label list');
    if (k === 0 || k === cfg.labelIterations - 1) {
      items = (JSON.parse(reply.body.toString()) as { items: unknown[] }).items.length;
      if (items < perGroup) throw new Error(`label list returned ${items} pods, expected ~${perGroup}`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpuWithLists = cpuSecondsOf(pid) - cpu0;
  // Pass 2: the same writes alone.
  const cpu1 = cpuSecondsOf(pid);
  for (let k = 0; k < cfg.labelIterations; k++) await write(k, 'b');
  const cpuWritesOnly = cpuSecondsOf(pid) - cpu1;
  return {
    pods: cfg.labelPods,
    groups: cfg.labelGroups,
    iterations: cfg.labelIterations,
    itemsPerList: items,
    seconds,
    listsPerSecond: cfg.labelIterations / seconds,
    serverCpuSeconds: cpuWithLists,
    serverCpuWritesOnlySeconds: cpuWritesOnly,
    serverCpuMsPerRound: (1000 * cpuWithLists) / cfg.labelIterations,
    serverCpuMsPerList: (1000 * Math.max(0, cpuWithLists - cpuWritesOnly)) / cfg.labelIterations,
  };
}
