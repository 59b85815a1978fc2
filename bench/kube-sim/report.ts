// The kube-sim benchmark's table: what each phase measured, beside its target.
import { TARGET_CREATES, TARGET_RSS, type Config } from './config.ts';
import type { labelListUnderWrites } from './label-list.ts';
import type { Results } from './measure.ts';

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const mib = (b: number): string => `${fmt(b / 1024 ** 2)} MiB`;

type Row = [string, string, string, string];

export function printTable(rows: Row[]): void {
  const w0 = Math.max(...rows.map((r) => r[0].length), 6);
  const w1 = Math.max(...rows.map((r) => r[1].length), 5);
  const w2 = Math.max(...rows.map((r) => r[2].length), 6);
  const line = (r: Row): string =>
    `${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2].padEnd(w2)}  ${r[3]}`.trimEnd();
  console.log(line(['metric', 'value', 'target', '']));
  console.log(line(['-'.repeat(w0), '-'.repeat(w1), '-'.repeat(w2), '------']));
  for (const r of rows) console.log(line(r));
}

export function labelListRows(r: Awaited<ReturnType<typeof labelListUnderWrites>>): Row[] {
  return [
    [
      `label LIST under writes: ${fmt(r.pods)} pods in ${fmt(r.groups)} groups, ${fmt(r.iterations)} x (write + LIST)`,
      `${fmt(r.listsPerSecond)} LISTs/s`,
      '',
      '',
    ],
    ['  server CPU per write + LIST', `${fmt(r.serverCpuMsPerRound, 2)} ms`, '', ''],
    ['  server CPU per LIST (minus a writes-only pass)', `${fmt(r.serverCpuMsPerList, 2)} ms`, '', ''],
  ];
}

/** The rows of a whole run: creates, LISTs, watch fan-out, the server's RSS, label LISTs. */
export function resultRows(cfg: Config, results: Results): Row[] {
  const { create, list, watch, rss, labelList } = results;
  const createCpu = create.serverCpuSeconds;
  const check = (met: boolean): string => (cfg.smoke ? '(smoke)' : met ? 'ok' : 'MISSED');
  return [
    [
      `creates/s (${cfg.clients} keep-alive clients, ${fmt(cfg.pods)} pods)`,
      fmt(create.perSecond),
      `≥ ${fmt(TARGET_CREATES)}`,
      check(results.targets.createsPerSecond.met),
    ],
    ['  create latency p50 / p99', `${fmt(create.p50Ms, 1)} / ${fmt(create.p99Ms, 1)} ms`, '', ''],
    [
      '  server CPU during creates (share of one core)',
      `${fmt(createCpu, 1)} s (${fmt((100 * createCpu) / create.seconds)} %)`,
      '',
      '',
    ],
    ['  creates per server CPU-second', fmt(create.pods / createCpu), '', ''],
    [`list ${fmt(list.items)} pods, one request (${mib(list.bytes)})`, `${fmt(list.wholeMs)} ms`, '', ''],
    [
      `list ${fmt(list.items)} pods, paged limit=${cfg.page} (${list.pages} pages)`,
      `${fmt(list.pagedTotalMs)} ms`,
      '',
      '',
    ],
    [`  first page (limit=${cfg.page})`, `${fmt(list.firstPageMs, 1)} ms`, '', ''],
    [
      `watch fan-out: ${cfg.watchers} watchers x ${fmt(cfg.watchEvents)} changes`,
      `${fmt(watch.deliveredPerSecond)} events/s`,
      '',
      '',
    ],
    ['  writes/s during fan-out', fmt(watch.writesPerSecond), '', ''],
    [
      `server RSS at ${fmt(cfg.pods)} pods`,
      mib(rss.afterCreateBytes),
      `≤ ${mib(TARGET_RSS)}`,
      check(rss.afterCreateBytes <= TARGET_RSS),
    ],
    [
      '  server RSS peak during create / list / watch',
      `${mib(rss.peakCreateBytes)} / ${mib(rss.peakListBytes)} / ${mib(rss.peakWatchBytes)}`,
      '',
      '',
    ],
    ['  server RSS at the end', mib(rss.endBytes), '', ''],
    ['  server RSS idle (before the run)', mib(rss.idleBytes), '', ''],
    ...labelListRows(labelList),
  ];
}
