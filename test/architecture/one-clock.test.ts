// One clock: in the sources of apps/ and libs/ the time is read only through a Clock
// (libs/clock/src/index.ts), so a test can put a fake one in and advance it instead of sleeping.
// Formatting a given moment (`new Date(ms)`) is fine; reading the time directly is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTestFile, read, repoFiles } from './walker.ts';

const CLOCK = 'libs/clock/src/index.ts';
/** Reading the time: Date.now (called or passed), performance.now, and a Date of no argument. */
const READS_TIME = /\bDate\.now\b|\bperformance\.now\b|\bnew Date\(\s*\)/;
/**
 * Waiting on the time past the Clock: the timers of node:timers/promises, setTimeout and setInterval, and the
 * system clock called where a Clock should be taken (it is only a default: `clock ?? systemClock`).
 */
const BYPASSES_CLOCK =
  /\bnode:timers\/promises\b|\bset(?:Timeout|Interval)\s*\(|\bsystemClock\s*\.\s*(?:now|elapsed|sleep)\b/;
/**
 * The timers that stay as they are, each with why: none decides when our own work is due, so no test has
 * to advance them. A new timer goes through a Clock (clock.sleep, or schedule() for a cancellable one).
 */
const OWN_TIMERS: Record<string, string> = {
  'apps/dashboard/src/auth-middleware.ts': "a failed login's fixed delay against guessing",
  'apps/watcher/src/checkpoint.ts': 'the checkpoint and sentinel intervals run for the life of the process',
  'libs/kube/src/deadline.ts': "an API request's deadline (the request itself runs in real time)",
  'libs/queue/src/bulk-slots.ts':
    "a bulk job's short wait for a slot while BullMQ holds its lock in real time",
  'apps/redis-init/src/redis-scripts-main.ts': 'a process entry point, not a library',
  'libs/runtime/src/shutdown.ts':
    "the process's stop guard (SHUTDOWN_TIMEOUT), which must fire whatever a Clock says",
  'libs/runtime/src/timeout.ts': 'withTimeout bounds a real I/O call',
  'libs/testkit/src/proc.ts': 'test support: a child process killed after a real grace',
  'libs/testkit/src/redis.ts': 'test support: a real redis-server and socket',
  'libs/testkit/src/redis-watchdog.ts': 'test support: a real process watched until it ends',
  'libs/testkit/src/wait.ts': 'test support: polls real processes until they answer',
};

/** The source without comments, so a comment may still name what it replaced. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

function sources(): string[] {
  return repoFiles('{apps,libs}/*/src/**/*.ts').filter((file) => !isTestFile(file) && file !== CLOCK);
}

function readersOfTime(): string[] {
  return sources().filter((file) => READS_TIME.test(code(read(file))));
}

function bypassesOfClock(): string[] {
  return sources().filter((file) => BYPASSES_CLOCK.test(code(read(file))));
}

test('apps/ and libs/ read the time only through a Clock', () => {
  const readers = readersOfTime();
  assert.deepEqual(
    readers,
    [],
    'these files read the time directly: take a Clock (libs/clock/src/index.ts) instead',
  );
});

test('apps/ and libs/ wait on the time only through a Clock (the listed timers aside)', () => {
  const found = bypassesOfClock();
  assert.deepEqual(
    found.filter((file) => OWN_TIMERS[file] === undefined),
    [],
    'these files wait on a timer or call systemClock directly: take a Clock (clock.sleep, schedule) instead',
  );
  // The list holds only files that still have such a timer: a fixed one leaves it.
  assert.deepEqual(
    Object.keys(OWN_TIMERS).filter((file) => !found.includes(file)),
    [],
    'no longer a bypass',
  );
});

test('the timer check sees each way past the Clock, and not a default or a comment', () => {
  for (const bypass of [
    "import { setTimeout as sleep } from 'node:timers/promises';",
    'const t = setTimeout(() => abort(), ms);',
    'setInterval (tick, 1000)',
    'const startedAt = systemClock.now();',
    'await systemClock.sleep(10)',
  ]) {
    assert.match(code(bypass), BYPASSES_CLOCK, bypass);
  }
  for (const fine of [
    'this.clock = opts.clock ?? systemClock;',
    'clock: Clock = systemClock',
    'await clock.sleep(ms, signal)',
    '// was setTimeout(fire, ms)',
    'clearTimeout(timer)',
  ]) {
    assert.doesNotMatch(code(fine), BYPASSES_CLOCK, fine);
  }
});

test('the check sees each way of reading the time, and not a given moment or a comment', () => {
  for (const reads of [
    'Date.now()',
    'const now = opts.now ?? Date.now;',
    'performance.now()',
    'new Date()',
  ]) {
    assert.match(code(reads), READS_TIME, reads);
  }
  for (const fine of [
    'new Date(ms).toISOString()',
    '// was Date.now()',
    '/* performance.now */ x',
    "'http://x'",
  ]) {
    assert.doesNotMatch(code(fine), READS_TIME, fine);
  }
});
