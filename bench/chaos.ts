// `npm run chaos` (node bench/chaos.ts): the chaos run with its figures. Exit 0 when every guarantee
// held, 1 otherwise.
//   --short        the CI size (30 PodSets, 15 s of faults)
//   --seed N       the random schedule (default 1): the same seed gives the same schedule
//   --podsets N --seconds S   override the sizes
//   --json FILE    also write the result as JSON
//   --keep-logs    keep the apps' logs (their directory is printed)
//   --state-source projection|api   STATE_SOURCE of the watchers and workers (default projection)
//   --redis-acl    each app as its own Redis ACL user (as chaos-short's first test runs them)
// A failed run keeps its logs (and kube-sim's audit and store events) and prints where.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FULL, SHORT, formatResult, runChaos } from '../test/chaos/support/chaos.ts';
import { parseCli } from './lib/cli.ts';

const USAGE = `usage: npm run chaos -- [options]
  --short             the CI size (30 PodSets, 15 s of faults)
  --seed N            the random schedule (default 1): the same seed gives the same schedule
  --podsets N         PodSets to run
  --seconds S         seconds of faults
  --json FILE         also write the result as JSON
  --keep-logs         keep the apps' logs (their directory is printed)
  --state-source projection|api   STATE_SOURCE of the watchers and workers (default projection)
  --redis-acl         each app as its own Redis ACL user, the scripts cached by the loader
A failed run keeps its logs (with kube-sim's audit and store events) and prints where.
Exit 0 when every guarantee held, 1 otherwise.`;

const { values: a } = parseCli('chaos', USAGE, () =>
  parseArgs({
    options: {
      short: { type: 'boolean', default: false },
      seed: { type: 'string' },
      podsets: { type: 'string' },
      seconds: { type: 'string' },
      json: { type: 'string' },
      'keep-logs': { type: 'boolean', default: false },
      'state-source': { type: 'string', default: 'projection' },
      'redis-acl': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  }),
);
const num = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`chaos: --${name} must be a non-negative integer, got ${JSON.stringify(v)}\n`);
    process.exit(2);
  }
  return n;
};
const stateSource = a['state-source'];
if (stateSource !== 'api' && stateSource !== 'projection') {
  process.stderr.write(
    `chaos: --state-source must be api or projection, got ${JSON.stringify(stateSource)}\n${USAGE}\n`,
  );
  process.exit(2);
}
const base = a.short ? SHORT : FULL;
const options = {
  ...base,
  seed: num(a.seed, 'seed') ?? base.seed,
  podSets: num(a.podsets, 'podsets') ?? base.podSets,
  chaosSeconds: num(a.seconds, 'seconds') ?? base.chaosSeconds,
  keepLogs: a['keep-logs'],
  stateSource: stateSource as 'api' | 'projection',
  redisAcl: a['redis-acl'],
  log: (line: string) => process.stdout.write(`${line}\n`),
};
const result = await runChaos(options);
process.stdout.write(`\n${formatResult(result)}\n`);
if (a.json !== undefined) {
  const { log: _log, ...opts } = result.options;
  writeFileSync(a.json, JSON.stringify({ ...result, options: opts }, null, 2));
}
process.exit(result.violations.length === 0 ? 0 : 1);
