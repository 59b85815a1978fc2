// Redis's own count of the commands it ran over one window of a run (INFO commandstats, scripts' inner
// commands included), by command. Counts do not move with the machine's load as CPU-seconds do: two commits
// that send a different number of commands per event show it here, run after run.
import type { Redis } from 'ioredis';

/** Calls by command name (lower case, as Redis reports them: `evalsha`, `hget`, `client|setname`). */
export type CommandCounts = Record<string, number>;

/** Parses INFO commandstats's `cmdstat_<name>:calls=N,...` lines. */
export function parseCommandStats(info: string): CommandCounts {
  const counts: CommandCounts = {};
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m !== null) counts[m[1]!] = Number(m[2]);
  }
  return counts;
}

/** Starts counting; the returned function answers the calls made since, by command, most first. */
export async function meterCommands(redis: Redis): Promise<() => Promise<CommandCounts>> {
  const start = parseCommandStats(await redis.info('commandstats'));
  return async () => {
    const now = parseCommandStats(await redis.info('commandstats'));
    const delta = Object.entries(now)
      .map(([name, calls]) => [name, calls - (start[name] ?? 0)] as const)
      .filter(([, calls]) => calls > 0)
      .sort((a, b) => b[1] - a[1]);
    return Object.fromEntries(delta);
  };
}

/** The counts divided by `per` (commands per event), two decimals, largest first. */
export function perUnit(counts: CommandCounts, per: number): CommandCounts {
  return Object.fromEntries(
    Object.entries(counts).map(([name, calls]) => [name, Math.round((calls / Math.max(1, per)) * 100) / 100]),
  );
}
