// A watch line's bytes to its parsed event, whole and with metadata.managedFields cut (watch-line.ts: the
// cut made on the bytes, then one decode), in alternating rounds; fresh bytes each round, as a socket gives
// them. A hot loop: in the watcher's busy process a line costs ~5× this (perf, docs/PERFORMANCE.md), so read
// the ratio, not the µs. Capture the lines with curl on a watch while a converge runs on a kube-sim started
// by hand, e.g.
//   curl -sN -H "Authorization: Bearer $TOKEN" "$URL/api/v1/pods?watch=true&labelSelector=podset.io/name" > pods.jsonl
//   node_modules/.bin/node bench/watch-line-cost.ts pods.jsonl [--rounds 12]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { textWithoutManagedFields } from '@podset/kube';

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
  // Fresh bytes for every line: nothing of an earlier parse of the same string is reused.
  const fresh = lines.map((l) =>
    Buffer.from(l.replace('"resourceVersion":"', `"resourceVersion":"${round}`)),
  );
  const t = process.hrtime.bigint();
  for (const b of fresh) {
    if (JSON.parse(mode === 'cut' ? textWithoutManagedFields(b) : b.toString('utf8')) !== null) sink++;
  }
  return Number(process.hrtime.bigint() - t) / 1000;
};
const totals = { whole: [] as number[], cut: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 === 0 ? (['whole', 'cut'] as const) : (['cut', 'whole'] as const)) {
    const us = time(mode, r);
    if (r > 1) totals[mode].push(us / lines.length); // two rounds warm up
  }
}
const cutText = lines.map((l) => textWithoutManagedFields(Buffer.from(l)));
const size = (ls: string[]) => Math.round(ls.reduce((n, l) => n + l.length, 0) / ls.length);
const cut = cutText.filter((t, i) => t !== lines[i]).length;
const list = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(' ');
console.log(
  `${lines.length} lines, ${size(lines)} characters each, ${size(cutText)} cut; ` +
    `${cut} had the list\n  µs per line, whole: ${list(totals.whole)}\n  µs per line, cut:   ${list(totals.cut)}` +
    (sink === lines.length * ROUNDS * 2 ? '' : ' (some parse gave null)'),
);
