// A whole kube-sim benchmark run, phase after phase on one server, with its CPU and RSS around each phase.
import { cpus, loadavg } from 'node:os';
import { cpuSecondsOf, rssOf } from '../lib/figures.ts';
import { NS, TARGET_CREATES, TARGET_RSS, type Config } from './config.ts';
import { labelListUnderWrites } from './label-list.ts';
import { createPods, listAll, watchFanOut } from './phases.ts';
import { expectOk, resetPeak, type Client, type Server } from './server.ts';

export type Results = Awaited<ReturnType<typeof measureAll>>;

export async function measureAll(cfg: Config, server: Server, client: Client) {
  const pid = server.proc.pid!;
  const rssIdle = rssOf(pid);
  await expectOk(
    client.call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NS },
    }),
    'namespace',
  );
  console.error(
    `bench: ${cfg.pods} pods, ${cfg.clients} clients, ${cfg.watchers} watchers, server pid ${pid}`,
  );
  resetPeak(pid);
  const loadBefore = loadavg()[0] ?? NaN;
  const cpu0 = cpuSecondsOf(pid);
  const create = await createPods(cfg, client);
  const createCpu = cpuSecondsOf(pid) - cpu0;
  const loadAfter = loadavg()[0] ?? NaN;
  const rssCreatePeak = rssOf(pid).peak;
  await new Promise((r) => setTimeout(r, 1_000)); // let the server settle (controllers, GC of garbage)
  const rssAfterCreate = rssOf(pid);
  resetPeak(pid);
  const list = await listAll(cfg, client, cfg.smoke ? 1 : 3);
  const rssListPeak = rssOf(pid).peak;
  resetPeak(pid);
  const watch = await watchFanOut(cfg, server, client);
  const rssEnd = rssOf(pid);
  const labelList = await labelListUnderWrites(cfg, server, client);
  client.agent.destroy();

  return {
    time: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', node: process.version },
    smoke: cfg.smoke,
    loadAverage1m: { beforeCreates: loadBefore, afterCreates: loadAfter },
    create: {
      ...create,
      serverCpuSeconds: createCpu,
      serverCoreShare: createCpu / create.seconds,
      createsPerServerCpuSecond: create.pods / createCpu,
    },
    list,
    watch,
    labelList,
    rss: {
      idleBytes: rssIdle.rss,
      afterCreateBytes: rssAfterCreate.rss,
      endBytes: rssEnd.rss,
      peakCreateBytes: rssCreatePeak,
      peakListBytes: rssListPeak,
      peakWatchBytes: rssEnd.peak,
      peakBytes: Math.max(rssCreatePeak, rssListPeak, rssEnd.peak),
    },
    targets: {
      createsPerSecond: { target: TARGET_CREATES, met: create.perSecond >= TARGET_CREATES },
      rssBytes: { target: TARGET_RSS, met: rssAfterCreate.rss <= TARGET_RSS },
    },
  };
}
