// The client-side CPU of a defined script's command (as BullMQ and the merge script send them) through
// libs/redis's sendScriptsBySha, against plain ioredis: a real redis-server, N calls in batches of B,
// this process's CPU-seconds per call. Redis's own CPU is not counted (the same EVALSHA either way).
//   node_modules/.bin/node bench/script-sha-cost.ts [--calls 200000] [--batch 100] [--rounds 3]
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedis } from '@podset/testkit';
import { sendScriptsBySha } from '@podset/redis';

const { values } = parseArgs({
  options: { calls: { type: 'string' }, batch: { type: 'string' }, rounds: { type: 'string' } },
});
const calls = Number(values.calls ?? 200_000);
const batch = Number(values.batch ?? 100);
const rounds = Number(values.rounds ?? 3);
if (![calls, batch, rounds].every((n) => Number.isInteger(n) && n > 0))
  throw new Error('--calls, --batch and --rounds take positive integers');

const LUA = "return redis.call('EXISTS', KEYS[1])";
interface Scripted extends Redis {
  probe(key: string, arg: string): Promise<number>;
}

const server = await startRedis();
try {
  const variants: Record<string, () => Redis> = {
    'plain ioredis': () => new Redis(server.url),
    sendScriptsBySha: () => sendScriptsBySha(new Redis(server.url)),
    'sendScriptsBySha, read-only': () => sendScriptsBySha(new Redis(server.url), { readOnly: true }),
  };
  const results: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, make] of Object.entries(variants)) {
      const c = make() as Scripted;
      c.defineCommand('probe', { numberOfKeys: 1, lua: LUA });
      await c.probe('warm', 'x');
      const from = process.cpuUsage();
      for (let i = 0; i < calls; i += batch) {
        const sent: Promise<number>[] = [];
        for (let j = 0; j < batch; j++) sent.push(c.probe(`k${j}`, 'some-argument'));
        await Promise.all(sent);
      }
      const used = process.cpuUsage(from);
      (results[name] ??= []).push(((used.user + used.system) / calls) * 1000);
      c.disconnect();
    }
  }
  for (const [name, ns] of Object.entries(results)) {
    const sorted = [...ns].sort((a, b) => a - b);
    console.log(
      `${name.padEnd(30)} ${sorted.map((n) => n.toFixed(0)).join(', ')} ns per call (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)})`,
    );
  }
} finally {
  await server.close();
}
