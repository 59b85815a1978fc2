// Redis CPU per watch event of the watcher's fold (fold-each.lua with the queue's live cover and the event
// log, as the watcher runs it), on a local redis-server with no other client: `pods` pods of PodSets of 10
// go through a kubelet's lifecycle (added, bound, container creating, running, ready), `per` events per
// call, no reconcile queue jobs (every owed event finds no job). Prints Redis's own CPU (INFO cpu) and
// commands (INFO commandstats) per event, and the watcher-side client CPU.
//   node_modules/.bin/node bench/fold-cost.ts [--pods 3000] [--per 2] [--rounds 3] [--spread] [--slowlog]
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedis } from '@podset/testkit';
import { APPEND_RECORDS_LUA, EventLog, type EventRecord } from '@podset/event-log';
import { ProjectionWriter, type FoldItem, type ProjectedPod } from '@podset/state';
import { queueCoverHook } from '@podset/watcher/queue-cover';
import { parseCommandCosts } from './lib/redis-profile.ts';

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '3000' },
    per: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    /** Without the event log's records (the fold alone). */
    'no-log': { type: 'boolean', default: false },
    /**
     * Consecutive events of different PodSets (each step's pods taken a PodSet's tenth at a time), not a
     * PodSet's pods in a row: no two records of a call share a key (the event log's worst case).
     */
    spread: { type: 'boolean', default: false },
    /** Without the live cover (no queue beside the projection). */
    'no-cover': { type: 'boolean', default: false },
    /** The same calls to a script that only answers (the floor: the call, its arguments, the reply). */
    trivial: { type: 'boolean', default: false },
    /**
     * The slow log at 0 µs, as converge's --redis-stats runs it: Redis logs every command, a script's inner
     * ones too, and each entry's cost falls inside the script's time but outside its commands' own.
     */
    slowlog: { type: 'boolean', default: false },
  },
});
const PODS = Number(values.pods);
const PER = Number(values.per);

function cpuOf(info: string): number {
  let s = 0;
  for (const [, v] of info.matchAll(/used_cpu_(?:sys|user):([\d.]+)/g)) s += Number(v);
  return s;
}

/** The pod at step s of its life: 0 added, 1 bound, 2 creating, 3 running, 4 ready. */
function podAt(i: number, step: number, rv: number): ProjectedPod {
  const ps = `ps-${Math.floor(i / 10)}`;
  const t = '2026-12-03T12:00:00Z';
  const conditions = [
    ...(step >= 1 ? [{ type: 'PodScheduled', status: 'True', lastTransitionTime: t }] : []),
    ...(step >= 2 ? [{ type: 'Initialized', status: 'True', lastTransitionTime: t }] : []),
    ...(step >= 4 ? [{ type: 'Ready', status: 'True', lastTransitionTime: t }] : []),
  ];
  return {
    metadata: {
      name: `${ps}-p${i}`,
      namespace: 'default',
      uid: `uid-${i}`,
      resourceVersion: String(rv),
      creationTimestamp: t,
      labels: { 'podset.io/name': ps, 'podset.io/template-hash': 'abcdef' },
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: ps, uid: `ps-uid-${ps}`, controller: true },
      ],
    },
    ...(step >= 1 ? { spec: { nodeName: `node-${i % 100}` } } : {}),
    status: { phase: step >= 3 ? 'Running' : 'Pending', conditions },
  } as ProjectedPod;
}

const redis = await startRedis();
const admin = new Redis(redis.url);
const client = new Redis(redis.url);
const log = new EventLog({ redis: client, key: 'bull:reconcile:events-log' });
const writer = new ProjectionWriter({
  client,
  prefix: 'bull',
  queueName: 'reconcile',
  ...(values['no-cover'] ? {} : { owedKeyHook: queueCoverHook('bull', 'reconcile', 1000) }),
  ...(values['no-log'] ? {} : { eventLog: { lua: APPEND_RECORDS_LUA, key: log.key } }),
});
let rv = 1;
// The script calls' arguments and their bytes (after sha and numkeys), counted as the client sends them.
const sent = { args: 0, bytes: 0 };
{
  const evalsha = client.evalsha.bind(client) as (...a: (string | number)[]) => Promise<unknown>;
  (client as unknown as { evalsha: (...a: (string | number)[]) => Promise<unknown> }).evalsha = (...a) => {
    for (const arg of a.slice(2)) {
      sent.args++;
      sent.bytes += Buffer.byteLength(String(arg));
    }
    return evalsha(...a);
  };
}
if (values.trivial) {
  const floor = (await client.script(
    'LOAD',
    'local t = {} for i = 1, tonumber(ARGV[1]) do t[i] = 0 end return t',
  )) as string;
  const evalsha = client.evalsha.bind(client) as (...a: (string | number)[]) => Promise<unknown>;
  (client as unknown as { evalsha: (...a: (string | number)[]) => Promise<unknown> }).evalsha = (
    _sha,
    ...rest
  ) => evalsha(floor, ...rest);
}
if (values.slowlog) {
  await admin.config('SET', 'slowlog-max-len', '2000000');
  await admin.config('SET', 'slowlog-log-slower-than', '0');
}
for (let round = 0; round < Number(values.rounds); round++) {
  await admin.flushall();
  if (values.slowlog) await admin.slowlog('RESET');
  const events: { item: FoldItem & { epoch: number }; record: EventRecord }[] = [];
  for (let step = 0; step <= 4; step++)
    for (let j = 0; j < PODS; j++) {
      const i = values.spread ? (j % 10) * Math.ceil(PODS / 10) + Math.floor(j / 10) : j;
      const pod = podAt(i, step, rv++);
      events.push({
        item: {
          key: `default/ps-${Math.floor(i / 10)}`,
          kind: 'pod',
          type: step === 0 ? 'ADDED' : 'MODIFIED',
          object: pod,
          epoch: 1,
        },
        // As the watcher's eventRecord makes it.
        record: {
          t: new Date().toISOString(),
          type: step === 0 ? 'ADDED' : 'MODIFIED',
          kind: 'Pod',
          key: `default/ps-${Math.floor(i / 10)}`,
          name: pod.metadata.name!,
          rv: pod.metadata.resourceVersion!,
          phase: pod.status?.phase ?? '',
          ready: step >= 4 ? 'true' : 'false',
          owner: pod.metadata.ownerReferences![0]!.uid,
        },
      });
    }
  const cpu0 = cpuOf(await admin.info('cpu'));
  const cmd0 = parseCommandCosts(await admin.info('commandstats'));
  const client0 = process.cpuUsage();
  const sent0 = { ...sent };
  const owed = { 0: 0, 1: 0, 2: 0, 3: 0 } as Record<number, number>;
  let inflight: Promise<unknown>[] = [];
  for (let k = 0; k < events.length; k += PER) {
    const batch = events.slice(k, k + PER);
    inflight.push(
      writer
        .foldEach(
          batch.map((e) => e.item),
          values['no-log'] ? undefined : log.appendArgs(batch.map((e) => e.record)),
        )
        .then((fs) => {
          for (const f of fs) owed[f.settled ? 2 : f.owed ? (f.statusOnly ? 3 : 1) : 0]!++;
        }),
    );
    if (inflight.length >= 16) {
      await Promise.all(inflight);
      inflight = [];
    }
  }
  await Promise.all(inflight);
  const clientCpu = process.cpuUsage(client0);
  const cpu = cpuOf(await admin.info('cpu')) - cpu0;
  const cmd1 = parseCommandCosts(await admin.info('commandstats'));
  const n = events.length;
  const cmds = [...cmd1]
    .map(
      ([name, c]) =>
        [name, c.calls - (cmd0.get(name)?.calls ?? 0), c.usec - (cmd0.get(name)?.usec ?? 0)] as const,
    )
    .filter(([name, calls]) => calls > 0 && !['info', 'flushall', 'slowlog', 'config'].includes(name))
    .sort((a, b) => b[2] - a[2]);
  console.log(
    `round ${round + 1}: ${n} events, ${PER} per call: Redis CPU ${((cpu * 1e6) / n).toFixed(1)} µs/event, ` +
      `client ${((clientCpu.user + clientCpu.system) / n).toFixed(1)} µs/event; ` +
      `${((sent.args - sent0.args) / n).toFixed(1)} arguments, ${((sent.bytes - sent0.bytes) / n).toFixed(0)} bytes ` +
      `per event (keys included); answers ${JSON.stringify(owed)}`,
  );
  console.log(
    '  ' +
      cmds
        .map(([name, calls, usec]) => `${name} ${(calls / n).toFixed(2)}×${(usec / calls).toFixed(1)}µs`)
        .join(', '),
  );
}
client.disconnect();
admin.disconnect();
await redis.close();
