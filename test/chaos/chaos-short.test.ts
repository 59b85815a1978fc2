// The CI variant of the chaos run (`npm run chaos -- --short`): 30 PodSets under random changes for
// 15 s while workers, the leading watcher, Redis (with AOF, from its AOF of a second before, then
// without persistence) and the API server fail (restarted, and restored from a backup of its data dir: the cluster
// goes back in time) and kube-sim injects errors, latency and watch cuts. Then every guarantee is checked
// from kube-sim's history: convergence within 30 s, no over-creation, no orphan, no lost request,
// no job failed without a reason. The figures are printed either way.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { SHORT, formatResult, runChaos } from './support/chaos.ts';

async function chaosShort(
  t: TestContext,
  stateSource: 'projection' | 'api',
  redisAcl = false,
): Promise<void> {
  const result = await runChaos({
    ...SHORT,
    stateSource,
    redisAcl,
    seed: Number(process.env.CHAOS_SEED ?? SHORT.seed),
    log: (line) => t.diagnostic(line),
  });
  const report = formatResult(result);
  t.diagnostic(report);
  // Each fault really happened (a run whose faults silently did nothing proves nothing).
  const kills = result.figures.processKills;
  assert.equal(kills['leading watcher SIGKILL'], 2, report);
  assert.equal(kills['redis restart (AOF)'], 1, report);
  assert.equal(kills['redis restart (data lost)'], 1, report);
  assert.equal(kills['API server restart'], 1, report);
  assert.equal(kills['redis restart (last second lost)'], 1, report);
  assert.equal(kills['API server restored from a backup'], 1, report);
  assert.ok((kills['worker SIGKILL'] ?? 0) >= 2, report);
  assert.ok(
    (result.figures.apiErrorsByCode['500'] ?? 0) > 0,
    `no injected 500 reached the operator\n${report}`,
  );
  assert.deepEqual(result.violations, [], `${report}\n${result.events.join('\n')}`);
}

// The workers plan from the watcher's projection (the default): a projection that lags, loses its Redis
// or misses a deletion must never make a worker over-create, orphan or leave a PodSet unconverged. Each app
// has its own Redis ACL user here (the worker may only read the projected PodSets), as an install with ACLs.
test('chaos (short), one Redis user per app: every guarantee holds after workers, watchers, Redis and the API fail', (t) =>
  chaosShort(t, 'projection', true));

// The same with the fallback, where every reconcile reads the API (STATE_SOURCE=api).
test('chaos (short), STATE_SOURCE=api: every guarantee holds', (t) => chaosShort(t, 'api'));
