// The redis-server that `npm run demo` and `npm run operator` start for themselves is part of the run, as
// kube-sim is: when it dies (killed, out of memory), the user is told in one line and it is started
// again on the same port with the same users, as a Deployment's Redis would be restarted. The data is
// gone with it (it keeps none), which the operator recovers from on its own: the script loader loads the
// scripts again, the watcher relists and the workers reconcile. A server that keeps dying is not
// restarted for ever: after MAX_RESTARTS within WINDOW_MS the run stops, exit code 1.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisServer } from '@podset/testkit';

export const MAX_RESTARTS = 5;
export const WINDOW_MS = 120_000;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 16_000;

export interface KeeperReport {
  /** One line for the user (stderr). */
  say(line: string): void;
  /** The server cannot be kept running: stop the run with a non-zero exit. */
  giveUp(line: string): void;
}

export interface RedisKeeper {
  /** From now on an exit is the run's own stop, not a death. */
  stop(): void;
}

/** Watches `server`'s process and restarts it when it exits unasked, with a doubling delay. */
export function keepRedis(
  command: string,
  server: Pick<RedisServer, 'port' | 'process' | 'pids' | 'restart'>,
  report: KeeperReport,
  clock: { now(): number; sleep(ms: number): Promise<unknown> } = { now: () => performance.now(), sleep },
): RedisKeeper {
  let stopped = false;
  const deaths: number[] = [];
  const watch = (): void => {
    server.process.once('exit', (code, signal) => {
      if (!stopped) void revive(signal ?? `code ${code}`);
    });
  };
  const revive = async (how: string): Promise<void> => {
    const now = clock.now();
    deaths.push(now);
    while (deaths.length > 0 && (deaths[0] ?? now) < now - WINDOW_MS) deaths.shift();
    if (deaths.length > MAX_RESTARTS) {
      report.giveUp(
        `${command}: its redis-server on port ${server.port} died ${deaths.length} times within ${WINDOW_MS / 1000} s (last: ${how}); stopping the ${command}`,
      );
      return;
    }
    const delayMs = Math.min(FIRST_DELAY_MS * 2 ** (deaths.length - 1), MAX_DELAY_MS);
    report.say(
      `${command}: its redis-server on port ${server.port} died (${how}); restarting it in ${delayMs / 1000} s, empty (restart ${deaths.length} of at most ${MAX_RESTARTS} within ${WINDOW_MS / 1000} s)`,
    );
    await clock.sleep(delayMs);
    if (stopped) return;
    try {
      await server.restart();
    } catch (err) {
      // It did not come up: counted as another death, with the next delay.
      return void revive(
        `restart failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      );
    }
    if (stopped) return;
    report.say(`${command}: redis-server is back on port ${server.port} (pid ${server.pids.server ?? '?'})`);
    watch();
  };
  watch();
  return {
    stop: () => {
      stopped = true;
    },
  };
}
