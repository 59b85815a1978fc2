// `npm run <script>` as a user runs it from the repository, in its own process group (so that a test
// can send Ctrl-C's SIGINT to all of it, or end everything it started), with its output kept.
import { spawn, type ChildProcess } from 'node:child_process';
import { waitFor } from '@podset/testkit';
import { REPO, sleep } from './harness.ts';

/** The user's environment, minus what would make the run depend on the machine or the test runner. */
export function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.REDIS_URL; // the demo and the operator then start their own redis-server
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  delete env.KUBECONFIG;
  return { ...env, ...extra };
}

export interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the whole process group (npm, sh, node and the children it started), SIGKILL after a grace. */
  stopGroup: (signal?: NodeJS.Signals) => Promise<void>;
  signalGroup: (signal: NodeJS.Signals) => void;
  groupAlive: () => boolean;
}

/** `npm run --silent <script> -- <args>`; `env` is added to the user's environment. */
export function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Run {
  // Its own process group, so that a test timeout can end npm, the script and every child it started.
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    cwd: REPO,
    env: userEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const group = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const stopGroup = async (signal: NodeJS.Signals = 'SIGTERM') => {
    group(signal);
    const timer = setTimeout(() => group('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    // npm may be gone while the demo's own children are still exiting.
    await sleep(200);
    group('SIGKILL');
  };
  const groupAlive = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.once('exit', () => group('SIGKILL'));
  return { child, output: () => out, exited, stopGroup, signalGroup: group, groupAlive };
}

/** Waits for `ok`; gives up at once when the run exits. Either failure shows what was seen and the run's output. */
export async function until(
  what: string,
  timeoutMs: number,
  ok: () => boolean | Promise<boolean>,
  run: Run,
  seen: () => string = () => '',
): Promise<void> {
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void run.exited.then((e) => (exit = e));
  await waitFor(what, ok, {
    timeoutMs,
    intervalMs: 300,
    giveUp: () => (exit === undefined ? undefined : `it exited (${JSON.stringify(exit)})`),
    describe: () => `last seen:\n${seen()}\noutput:\n${run.output().slice(-3000)}`,
  });
}

/** The promise's value, or undefined after `ms` (the timer does not outlive the wait). */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
