// What an entry's integrity tag costs to make (the watcher, per entry folded) and to check (a worker, per
// entry changed since its last read): µs per call on a pod-sized entry.
//   node_modules/.bin/node bench/entry-tags.ts [--calls 50000]
import { parseArgs } from 'node:util';
import { EntryTags, type TaggedEntry } from '../libs/state/src/integrity.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '50000' } } });
const calls = Number(values.calls);
const tags = new EntryTags({ current: 'k'.repeat(43) });
const entry: TaggedEntry = {
  kind: 'pod',
  key: 'default/web-17',
  field: 'web-17-x7k2p',
  rv: '123456',
  payload: 'x'.repeat(300), // a pod's stored line is a few hundred bytes
};
const tag = tags.tag(entry);

function perCall(fn: () => unknown): number {
  for (let i = 0; i < 5000; i++) fn(); // warm up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / calls;
}
console.log(
  `tag ${perCall(() => tags.tag(entry)).toFixed(2)} µs, verify ${perCall(() => tags.verify(entry, tag)).toFixed(2)} µs per call`,
);
