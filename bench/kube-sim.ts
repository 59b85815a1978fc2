// Benchmark of tools/kube-sim: creates/s with concurrent clients, list latency of many pods (whole and
// paged), watch fan-out (events/s delivered to several watchers), the server's RSS, and "label LIST under
// writes" (the operator's pattern: LIST pods?labelSelector=podset.io/name=X interleaved with pod writes).
//
//   node_modules/.bin/node bench/kube-sim.ts [--pods 100000] [--clients 32] [--watchers 10]
//       [--watch-events 10000] [--json out.json] [--smoke] [--profile DIR]
//       [--only label-list] [--label-pods 10000] [--label-groups 1000] [--label-iterations 2000]
//
// --only label-list: run only the label-LIST scenario (in its own namespace; well under a minute).
//
// The server runs in a child process (the real CLI, tools/kube-sim/src/cmd/main.ts, with pod lifecycle off),
// so its RSS is measured alone (/proc/<pid>/status) and the load generator does not share its event loop.
// --smoke: a small run (2,000 pods) for CI, same code paths, no targets enforced.
// --profile DIR: the server is started with --cpu-prof and writes its profile to DIR on exit.
// The pieces, in bench/kube-sim/: config.ts (these options), server.ts (the server and the client),
// phases.ts and label-list.ts (the load), measure.ts (a whole run), report.ts (the table).
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseConfig, type Config } from './kube-sim/config.ts';
import { labelListUnderWrites } from './kube-sim/label-list.ts';
import { measureAll } from './kube-sim/measure.ts';
import { fmt, labelListRows, printTable, resultRows } from './kube-sim/report.ts';
import { makeClient, startServer, type Client, type Server } from './kube-sim/server.ts';

const cfg = parseConfig(process.argv.slice(2));

/** --only label-list: that scenario alone, in its own namespace. */
async function labelListOnly(server: Server, client: Client): Promise<void> {
  const loadBefore = loadavg()[0] ?? NaN;
  const labelList = await labelListUnderWrites(cfg, server, client);
  client.agent.destroy();
  const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', node: process.version };
  console.log(
    `kube-sim benchmark (label LIST under writes) — ${machine.cpus} CPUs (${machine.cpuModel}), Node ${process.version}, ` +
      `load average ${fmt(loadBefore, 1)}${cfg.smoke ? ', SMOKE' : ''}`,
  );
  printTable(labelListRows(labelList));
  if (cfg.json) {
    const out = {
      time: new Date().toISOString(),
      machine,
      smoke: cfg.smoke,
      loadAverage1m: loadBefore,
      labelList,
    };
    writeFileSync(cfg.json, JSON.stringify(out, null, 2) + '\n');
  }
}

/** Every phase, then the table (and the JSON record). */
async function everything(c: Config, server: Server, client: Client): Promise<void> {
  const results = await measureAll(c, server, client);
  const { beforeCreates, afterCreates } = results.loadAverage1m;
  console.log(
    `kube-sim benchmark — ${results.machine.cpus} CPUs (${results.machine.cpuModel}), Node ${process.version}, ` +
      `load average ${fmt(beforeCreates, 1)} before / ${fmt(afterCreates, 1)} after the creates${c.smoke ? ', SMOKE' : ''}`,
  );
  printTable(resultRows(c, results));
  if (c.json) writeFileSync(c.json, JSON.stringify(results, null, 2) + '\n');
}

async function main(): Promise<void> {
  const server = await startServer(cfg.profile);
  const stopOnSignal = (): void => {
    void server.stop().finally(() => process.exit(130));
  };
  process.on('SIGINT', stopOnSignal);
  process.on('SIGTERM', stopOnSignal);
  try {
    const client = makeClient(server, cfg.clients);
    if (cfg.only === 'label-list') await labelListOnly(server, client);
    else await everything(cfg, server, client);
  } finally {
    await server.stop();
  }
}

await main();
