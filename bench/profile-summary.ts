// A CPU profile's samples per function, self and total, start-up left out: where a process's time went in
// a `npm run bench -- <scenario> --profile DIR` run (a worker's profiles are those whose text mentions
// apps/worker/src/main.ts). A heap profile (`--alloc-profile DIR`: FILE.heapprofile) the same way, in bytes
// allocated (--skip-ms and --under do not apply to it).
//   node_modules/.bin/node bench/profile-summary.ts FILE.cpuprofile|FILE.heapprofile [--skip-ms 3000] [--top 40]
//     [--under 'name'] (only samples beneath a frame whose label contains it) [--match 'text'] (total rows)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { summarizeHeap, type FunctionBytes, type HeapProfile } from './lib/heap-profile-summary.ts';
import { summarize, type CpuProfile, type FunctionTime } from './lib/profile-summary.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'skip-ms': { type: 'string', default: '3000' },
    top: { type: 'string', default: '40' },
    under: { type: 'string' },
    match: { type: 'string', default: '' },
  },
});
if (positionals.length === 0) {
  console.error(
    'usage: node bench/profile-summary.ts FILE.cpuprofile|FILE.heapprofile [--skip-ms N] [--top N] [--under TEXT] [--match TEXT]',
  );
  process.exit(2);
}
const top = Number(values.top);
const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1).padStart(8);

/** The self rows, then the total rows that match, each with its amount (`show`) and its share of `all`. */
function printRows(
  rows: { self: readonly { label: string; n: number }[]; total: readonly { label: string; n: number }[] },
  all: number,
  unit: string,
  show: (n: number) => string,
): void {
  const line = (r: { label: string; n: number }) =>
    console.log(`${show(r.n)} ${((100 * r.n) / Math.max(1, all)).toFixed(1).padStart(5)} %  ${r.label}`);
  console.log(`self (${unit}, share):`);
  rows.self.slice(0, top).forEach(line);
  console.log(`total (${unit}, share):`);
  rows.total
    .filter((r) => r.label.includes(values.match))
    .slice(0, top)
    .forEach(line);
}

for (const file of positionals) {
  const json = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | HeapProfile;
  if ('head' in json) {
    const h = summarizeHeap(json);
    const rows = (ts: readonly FunctionBytes[]) => ts.map((t) => ({ label: t.label, n: t.bytes }));
    console.log(`${file}: ${mb(h.bytes).trim()} MB allocated (sampled)`);
    printRows({ self: rows(h.self), total: rows(h.total) }, h.bytes, 'MB', mb);
    continue;
  }
  const s = summarize(json, {
    skipMs: Number(values['skip-ms']),
    ...(values.under !== undefined ? { under: values.under } : {}),
  });
  const rows = (ts: readonly FunctionTime[]) => ts.map((t) => ({ label: t.label, n: t.us }));
  console.log(
    `${file}: ${ms(s.sampledUs).trim()} ms sampled${values.under !== undefined ? ` beneath '${values.under}'` : ''}`,
  );
  printRows({ self: rows(s.self), total: rows(s.total) }, s.sampledUs, 'ms', ms);
}
