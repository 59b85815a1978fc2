// JSON.parse of captured watch lines, whole and with metadata.managedFields cut (watch-line.ts, the scan
// included), in alternating rounds; fresh strings each round, as a socket gives them. A hot loop: in the
// watcher's busy process a line costs ~5× this (perf, docs/PERFORMANCE.md), so read the ratio, not the µs.
// Capture the lines with curl on a watch while a converge runs on a kube-sim started by hand, e.g.
//   curl -sN -H "Authorization: Bearer $TOKEN" "$URL/api/v1/pods?watch=true&labelSelector=podset.io/name" > pods.jsonl
//   node_modules/.bin/node bench/watch-line-cost.ts pods.jsonl [--rounds 12]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { withoutManagedFields } from '@podset/kube';

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '12' } },
  allowPositionals: true,
});
const ROUNDS = Number(values.rounds);
const lines = positionals
  .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
  .filter((l) => l.trim() !== '' && !l.includes('"BOOKMARK"'));
if (lines.length === 0) throw new Error('usage: watch-line-cost.ts FILE.jsonl… [--rounds N]');

let sink = 0;
const time = (mode: 'whole' | 'cut', round: number): number => {
  // A fresh copy of every line: nothing of an earlier parse of the same string is reused.
  const fresh = lines.map((l) => l.replace('"resourceVersion":"', `"resourceVersion":"${round}`));
  const t = process.hrtime.bigint();
  for (const l of fresh) if (JSON.parse(mode === 'cut' ? withoutManagedFields(l) : l) !== null) sink++;
  return Number(process.hrtime.bigint() - t) / 1000;
};
const totals = { whole: [] as number[], cut: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 === 0 ? (['whole', 'cut'] as const) : (['cut', 'whole'] as const)) {
    const us = time(mode, r);
    if (r > 1) totals[mode].push(us / lines.length); // two rounds warm up
  }
}
const size = (ls: string[]) => Math.round(ls.reduce((n, l) => n + l.length, 0) / ls.length);
const cut = lines.filter((l) => withoutManagedFields(l) !== l).length;
const list = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(' ');
console.log(
  `${lines.length} lines, ${size(lines)} characters each, ${size(lines.map(withoutManagedFields))} cut; ` +
    `${cut} had the list\n  µs per line, whole: ${list(totals.whole)}\n  µs per line, cut:   ${list(totals.cut)}` +
    (sink === lines.length * ROUNDS * 2 ? '' : ' (some parse gave null)'),
);
