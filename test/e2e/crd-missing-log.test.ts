// The watcher started before the PodSet CRD is installed: it says so once (one warning naming the CRD
// and how to install it), not once per retry, and once more (one info line) when the CRD appears.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '@podset/testkit';
import { applyCrd, startEnv, type OperatorEnv, type Proc } from './support/harness.ts';

let env: OperatorEnv;
let watcher: Proc;

before(async () => {
  env = await startEnv({ name: 'crd-missing-log' });
  watcher = env.startWatcher('watcher-0');
});

after(async () => {
  await env?.close();
});

interface Line {
  level?: number;
  msg?: string;
  stream?: string;
  reason?: string;
  err?: string;
}

/** The watcher's JSON log lines about the PodSets stream. */
function podSetLines(): Line[] {
  return watcher
    .lines()
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Line];
      } catch {
        return [];
      }
    })
    .filter((l) => l.stream === 'podsets/*');
}

const WARN = 40;
const INFO = 30;

test('while the CRD is missing: one warning naming it and how to install it, over several retries', async () => {
  // The retries themselves, at debug (the harness runs the watcher with LOG_LEVEL=debug).
  await waitFor(
    'the watcher to retry the 404 on PodSets four times',
    () =>
      podSetLines().filter((l) => l.msg === 'watch ended; restarting' && /404/.test(l.err ?? '')).length >= 4,
    { timeoutMs: 60_000, describe: () => watcher.describe() },
  );
  const warnings = podSetLines().filter((l) => (l.level ?? 0) >= WARN);
  assert.equal(warnings.length, 1, JSON.stringify(warnings, null, 1));
  assert.match(warnings[0]?.msg ?? '', /podsets\.podset\.io/);
  assert.match(warnings[0]?.msg ?? '', /kubectl apply -f crds\/podset\.yaml/);
  // Nor an info line per retry: what is said at info about the stream is the first relist only.
  const infos = podSetLines().filter((l) => l.level === INFO);
  assert.deepEqual(
    infos.map((l) => l.msg),
    ['relisting'],
  );
  assert.ok(watcher.running, watcher.describe());
});

test('once the CRD is applied: one info line saying it is installed now', async () => {
  await applyCrd(env);
  await waitFor(
    'the watcher to say the PodSet CRD is installed now',
    () => podSetLines().some((l) => l.level === INFO && /CRD .*installed now/.test(l.msg ?? '')),
    { timeoutMs: 60_000, describe: () => watcher.describe() },
  );
  await waitFor('the PodSets watch to open', () => podSetLines().some((l) => l.msg === 'relisted'), {
    timeoutMs: 30_000,
    describe: () => watcher.describe(),
  });
  const found = podSetLines().filter((l) => /installed now/.test(l.msg ?? ''));
  assert.equal(found.length, 1, JSON.stringify(found, null, 1));
  assert.equal(podSetLines().filter((l) => (l.level ?? 0) >= WARN).length, 1);
});
