// A CPU profile's samples per function, self and total, start-up left out: where a process's time went in
// a `npm run bench -- <scenario> --profile DIR` run (a worker's profiles are those whose text mentions
// apps/worker/src/main.ts). A heap profile (`--alloc-profile DIR`: FILE.heapprofile) the same way, in bytes
// allocated (--skip-ms and --under do not apply to it).
//   node_modules/.bin/node bench/profile-summary.ts FILE.cpuprofile|FILE.heapprofile [--skip-ms 3000] [--top 40]
//     [--under 'name'] (only samples beneath a frame whose label contains it) [--match 'text'] (total rows)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { summarizeHeap, type HeapProfile } from './lib/heap-profile-summary.ts';
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
for (const file of positionals) {
  const json = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | HeapProfile;
  if ('head' in json) {
    const h = summarizeHeap(json);
    const share = (b: number) => `${((100 * b) / Math.max(1, h.bytes)).toFixed(1).padStart(5)} %`;
    console.log(`${file}: ${mb(h.bytes).trim()} MB allocated (sampled)`);
    console.log('self (MB, share):');
    for (const t of h.self.slice(0, top)) console.log(`${mb(t.bytes)} ${share(t.bytes)}  ${t.label}`);
    console.log('total (MB, share):');
    for (const t of h.total.filter((x) => x.label.includes(values.match)).slice(0, top)) {
      console.log(`${mb(t.bytes)} ${share(t.bytes)}  ${t.label}`);
    }
    continue;
  }
  const profile = json;
  const s = summarize(profile, {
    skipMs: Number(values['skip-ms']),
    ...(values.under !== undefined ? { under: values.under } : {}),
  });
  const share = (t: FunctionTime) => `${((100 * t.us) / Math.max(1, s.sampledUs)).toFixed(1).padStart(5)} %`;
  console.log(
    `${file}: ${ms(s.sampledUs).trim()} ms sampled${values.under !== undefined ? ` beneath '${values.under}'` : ''}`,
  );
  console.log('self (ms, share):');
  for (const t of s.self.slice(0, top)) console.log(`${ms(t.us)} ${share(t)}  ${t.label}`);
  console.log('total (ms, share):');
  for (const t of s.total.filter((x) => x.label.includes(values.match)).slice(0, top)) {
    console.log(`${ms(t.us)} ${share(t)}  ${t.label}`);
  }
}
