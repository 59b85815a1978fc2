// What one permanently failing PodSet costs the API server: a PodSet whose pods the API always rejects
// (a template label key that is no valid label), one watcher and one worker with their default settings
// (MAX_ATTEMPTS, backoff, PARKED_RETRY_SECONDS). Prints the API requests the operator made for it — on
// PodSets, pods and Events; not the watcher's leader Lease, which it renews whatever the PodSets do — in
// the first 90 s and per minute after that, read from kube-sim's audit log.
//
//   npm run bench:failing-podset -- [--seconds 420]
import { parseArgs } from 'node:util';
import type { AuditEntry } from '@podset/kube-sim';
import { parseCli } from './lib/cli.ts';
import { FAST_PODS, applyCrd, podSetManifest, sleep, startEnv } from '../test/e2e/support/harness.ts';

const USAGE = 'usage: npm run bench:failing-podset -- [--seconds S]   (S > 90; default 420)';
const { values } = parseCli('failing-podset', USAGE, () =>
  parseArgs({ options: { seconds: { type: 'string', default: '420' }, help: { type: 'boolean' } } }),
);
const totalS = Number(values.seconds);
if (!Number.isFinite(totalS) || totalS <= 90) {
  console.error(`--seconds must be a number above 90, got ${values.seconds}`);
  process.exit(2);
}

const WRITES = new Set(['create', 'update', 'patch', 'delete']);
const CAUSED = new Set(['podsets', 'pods', 'events']);
// No pod Events: they would add objects to what the benchmark measures.
const env = await startEnv({ name: 'failing-bench', controllerOptions: { ...FAST_PODS, podEvents: false } });
try {
  await applyCrd(env);
  // The tests' harness turns resync off; a user's operator has it on (the watcher's default).
  env.startWatcher('watcher-0', {
    LOG_LEVEL: 'info',
    RESYNC_PERIOD_SECONDS: '300',
    LEASE_DURATION_SECONDS: '15',
  });
  env.startWorker('worker-0', { REQUEUE_PENDING_SECONDS: '5' });
  await sleep(2_000); // both up and the watch open before the PodSet appears
  const t0 = Date.now();
  const bad = podSetManifest('bad', 3, { labels: { 'bad key!': 'x' } });
  await env.kubectl(['apply', '-f', env.writeManifest('bad.yaml', [bad])]);
  await sleep(totalS * 1000 - (Date.now() - t0));

  const ours = env.sim.audit
    .all()
    .filter((e) => e.userAgent.startsWith('podset-') && Date.parse(e.time) >= t0)
    .filter((e) => e.verb !== 'watch' && CAUSED.has(e.resource));
  const within = (from: number, to: number) =>
    ours.filter((e) => Date.parse(e.time) - t0 >= from * 1000 && Date.parse(e.time) - t0 < to * 1000);
  const summary = (entries: AuditEntry[]) => ({
    requests: entries.length,
    writes: entries.filter((e) => WRITES.has(e.verb)).length,
    rejectedCreates: entries.filter((e) => e.verb === 'create' && e.resource === 'pods' && e.code >= 400)
      .length,
    statusWrites: entries.filter((e) => e.subresource === 'status').length,
    events: entries.filter((e) => e.resource === 'events' && WRITES.has(e.verb)).length,
  });
  const first = summary(within(0, 90));
  const rest = summary(within(90, totalS));
  const minutes = (totalS - 90) / 60;
  const perMin = (n: number) => (n / minutes).toFixed(2);
  console.log(`one permanently failing PodSet, ${totalS} s, default settings`);
  console.log('                      first 90 s    per minute after');
  for (const k of ['requests', 'writes', 'rejectedCreates', 'statusWrites', 'events'] as const) {
    console.log(`${k.padEnd(22)}${String(first[k]).padStart(10)}    ${perMin(rest[k]).padStart(16)}`);
  }
  const byKind = (entries: AuditEntry[]) => {
    const out: Record<string, number> = {};
    for (const e of entries) {
      const k = `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  console.log('first 90 s by request:', JSON.stringify(byKind(within(0, 90))));
  console.log('after, by request:', JSON.stringify(byKind(within(90, totalS))));
  console.log(JSON.stringify({ seconds: totalS, first90s: first, afterPerMinute: rest, minutes }));
} finally {
  await env.close();
}
