// Redis commands per finished job on the queue alone (no watcher, no kube): `jobs` keys requested live,
// one worker runs them; while a job runs, a share of keys gets another request (none, due now, or
// delayed), and a share of reconciles asks for requeue-after. Counts Redis's own commandstats (commands
// inside scripts included) and attributes them to the top-level call that ran them (MONITOR), per job.
//   node_modules/.bin/node bench/queue-commands.ts [--jobs 2000] [--concurrency 8] [--during 0.3] [--requeue 0.1]
//     [--retention-count N] [--events-max-len N] [--no-monitor (for Redis CPU per job)]
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startRedis } from '@podset/testkit';
import { ReconcileQueue, startReconcileWorker } from '@podset/queue';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    during: { type: 'string', default: '0.3' },
    requeue: { type: 'string', default: '0.1' },
    'retention-count': { type: 'string' },
    /** BullMQ's events stream bound (its queue meta field), to compare. Default: the queue's. */
    'events-max-len': { type: 'string' },
    /** Without MONITOR (which costs Redis more CPU than the jobs): for Redis CPU per job. */
    'no-monitor': { type: 'boolean', default: false },
  },
});
const JOBS = Number(values.jobs);
const DURING = Number(values.during);
const REQUEUE = Number(values.requeue);

const redis = await startRedis();
const admin = new Redis(redis.url);
const producer = new ReconcileQueue({ connection: redis.url });
let finished = 0;
let handled = 0;
// Deterministic shares: key i gets a request during its first run when i mod 10 < DURING·10, and so on.
const during = (i: number) => i % 10 < DURING * 10;
const requeue = (i: number) => (i * 7) % 10 < REQUEUE * 10;
const seen = new Set<string>();
const worker = startReconcileWorker({
  connection: redis.url,
  concurrency: Number(values.concurrency),
  ...(values['retention-count'] !== undefined
    ? { retention: { completed: { count: Number(values['retention-count']) } } }
    : {}),
  handler: async (req) => {
    handled++;
    const i = Number(req.key.split('-')[1]);
    const first = !seen.has(req.key);
    seen.add(req.key);
    if (first && during(i)) {
      // Half due now, half after a short delay (a status change collapsed).
      await producer.request(req.key, { source: 'live', ...(i % 2 === 0 ? {} : { delayMs: 20 }) });
    }
    await sleep(1);
    return first && requeue(i) ? { requeueAfterMs: 30 } : undefined;
  },
  hooks: { onEnd: () => void finished++, onError: (e) => console.error('worker error', e) },
});

async function stats(): Promise<Map<string, number>> {
  const text = (await admin.info('commandstats')) + (await admin.info('cpu'));
  const m0 = new Map<string, number>();
  for (const [, name, s] of text.matchAll(/used_cpu_(sys|user):([\d.]+)/g)) m0.set(`cpu_${name!}`, Number(s));
  for (const [, name, calls] of text.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) m0.set(name!, Number(calls));
  return m0;
}

if (values['events-max-len'] !== undefined) {
  await admin.hset(`${producer.jobPrefix}meta`, 'opts.maxLenEvents', values['events-max-len']);
}

// Warm up (scripts loaded, connections open) with a few keys outside the count.
await producer.requestAll(
  Array.from({ length: 20 }, (_, i) => ({ key: `warm/k-${i}`, opts: { source: 'live' as const } })),
);
while (finished < 20) await sleep(20);
await sleep(200);
finished = 0;
handled = 0;

// MONITOR: every command with its client; commands a script runs come as "[0 lua]" right after the call.
// monitor() makes a client of its own: one from duplicate() beside it would stay connected, and after the
// Redis stops retry for ever, so the script never exited.
const monitor = values['no-monitor'] ? undefined : await admin.monitor();
interface Call {
  calls: number;
  inside: number;
  commands: Map<string, number>;
}
const byCall = new Map<string, Call>();
let current: Call | undefined;
const scriptName = new Map<string, string>();
monitor?.on('monitor', (_time: string, args: string[], source: string) => {
  const cmd = (args[0] ?? '').toLowerCase();
  if (source.startsWith('lua')) {
    if (current !== undefined) {
      current.inside++;
      current.commands.set(cmd, (current.commands.get(cmd) ?? 0) + 1);
    }
    return;
  }
  let name = cmd;
  if (cmd === 'evalsha') {
    const keys = Number(args[2]);
    const known = scriptName.get(args[1] ?? '');
    // Ours: the merge script (its mode is ARGV[3]) and the others, by their key count.
    name = known ?? (String(args[3]).includes(':de:') ? `merge ${args[3 + keys + 2]}` : `script/${keys}`);
  }
  if (name === 'info' || name === 'monitor') return;
  current = byCall.get(name) ?? { calls: 0, inside: 0, commands: new Map() };
  current.calls++;
  byCall.set(name, current);
});
// Name BullMQ's scripts and ours by SHA (ioredis sends EVALSHA with the script's SHA-1).
const bullScripts = createRequire(import.meta.url)(
  '../node_modules/bullmq/dist/cjs/scripts/index.js',
) as Record<string, { name: string; content: string }>;
for (const s of Object.values(bullScripts)) {
  scriptName.set(createHash('sha1').update(s.content).digest('hex'), s.name);
}
const before = await stats();
const t0 = Date.now();
await producer.requestAll(
  Array.from({ length: JOBS }, (_, i) => ({ key: `ns/k-${i}`, opts: { source: 'live' as const } })),
);
const expected = (n: number) => n >= JOBS;
while (!expected(finished)) await sleep(20);
// Requests made during runs and requeues finish too: wait until the queue is idle.
for (;;) {
  const counts = await worker.queue.queue.getJobCounts('wait', 'prioritized', 'delayed', 'active');
  if (Object.values(counts).every((n) => n === 0)) break;
  await sleep(50);
}
await sleep(300);
const after = await stats();
const seconds = (Date.now() - t0) / 1000;
monitor?.disconnect();

const jobs = finished;
const cpuMs = ['cpu_sys', 'cpu_user'].reduce((t, k) => t + (after.get(k)! - before.get(k)!) * 1000, 0);
const rows = [...after]
  .filter(([name]) => !name.startsWith('cpu_'))
  .map(([name, n]) => [name, n - (before.get(name) ?? 0)] as const)
  .filter(([, n]) => n > 0);
rows.sort((a, b) => b[1] - a[1]);
const total = rows.reduce((s, [, n]) => s + n, 0);
console.log(`${JOBS} keys, ${jobs} finished jobs (${handled} handler runs) in ${seconds.toFixed(1)} s`);
console.log(`commands per finished job: ${(total / jobs).toFixed(1)}`);
console.log(
  `Redis CPU per finished job: ${((cpuMs / jobs) * 1000).toFixed(1)} µs${monitor !== undefined ? ' (MONITOR on: inflated)' : ''}`,
);
console.log(rows.map(([name, n]) => `  ${name} ${(n / jobs).toFixed(2)}`).join('\n'));
console.log('top-level calls per job (calls / commands inside):');
const calls = [...byCall].sort((a, b) => b[1].calls + b[1].inside - (a[1].calls + a[1].inside));
for (const [name, c] of calls) {
  console.log(`  ${name} ${(c.calls / jobs).toFixed(2)} / ${(c.inside / jobs).toFixed(2)}`);
  if (c.inside / jobs < 1) continue;
  const inner = [...c.commands].sort((a, b) => b[1] - a[1]).filter(([, n]) => n / c.calls >= 0.05);
  console.log(`    per call: ${inner.map(([k, n]) => `${k} ${(n / c.calls).toFixed(2)}`).join(', ')}`);
}
await worker.close();
await producer.close();
admin.disconnect();
await redis.close();
