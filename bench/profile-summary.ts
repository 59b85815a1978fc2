// A CPU profile's samples per function, self and total, start-up left out: where a process's time went in
// a `npm run bench -- <scenario> --profile DIR` run (a worker's profiles are those whose text mentions
// apps/worker/src/main.ts).
//   node_modules/.bin/node bench/profile-summary.ts FILE.cpuprofile [--skip-ms 3000] [--top 40]
//     [--under 'name'] (only samples beneath a frame whose label contains it) [--match 'text'] (total rows)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
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
    'usage: node bench/profile-summary.ts FILE.cpuprofile [--skip-ms N] [--top N] [--under TEXT] [--match TEXT]',
  );
  process.exit(2);
}
const top = Number(values.top);
const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
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
